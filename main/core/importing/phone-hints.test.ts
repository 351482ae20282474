import { describe, expect, it } from 'vitest';
import { ukPhoneReason } from './uk-rules.js';

/**
 * A phone number that is not a UK one says why in the words that fit how it was written: digits alone are what a
 * spreadsheet makes of a number (its leading 0 dropped); a number written with brackets or dashes, as US systems and
 * public HL7 samples write `(847)234-5600`, was typed so and is another country's, where it was told a spreadsheet
 * dropped its 0 and to keep the column as text (an HL7 message has no column).
 */

describe('phone numbers without a leading 0', () => {
  it('digits alone: a spreadsheet dropped the 0', () => {
    expect(ukPhoneReason('7700900123')).toBe(
      'has no leading 0, as a spreadsheet drops it from a number: if it is 07700900123, write that and keep the column as text',
    );
  });

  it.each(['(847)234-5600', '(847) 234-5600', '847-234-5600', '847.234.5600'])(
    '%s, written with brackets, dashes or dots: another country’s number',
    (value) => {
      expect(ukPhoneReason(value)).toBe(
        'is not a UK phone number: it has no leading 0 or +44 (a number of another country, such as a US one?); write a UK number, or leave the field empty',
      );
    },
  );

  it('UK numbers written any usual way pass', () => {
    for (const value of [
      '07700 900123',
      '+44 7700 900123',
      '0044 7700 900123',
      '+44 (0)20 7946 0000',
      '(01904) 000000',
    ])
      expect(ukPhoneReason(value)).toBeUndefined();
  });
});
