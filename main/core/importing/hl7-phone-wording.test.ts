import { describe, expect, it } from 'vitest';
import { DEFAULT_CODE_LISTS } from '../../../shared/environment.js';
import type { MappingProfile } from '../model/mapping-profile.js';
import { importHl7Message } from './import-message.js';
import { writeRde011 } from './rde-writer.js';
import { exampleOrder } from './testing/write-fixtures.js';

/**
 * A phone number that lost its leading 0, or was rounded or written with '.0', said of an HL7 field (PID-13) told
 * the admin a spreadsheet did it and to keep the column as text: an HL7 message has no column. The HL7 sentence
 * names the sending system and what to ask it; a CSV's is unchanged (phone-hints.test.ts).
 */

const PROFILE: MappingProfile = {
  name: 'HL7 clinic',
  columns: {},
  constants: { paymentType: 'Account', courierCode: 'RMT24', currencyCode: 'GBP' },
  valueMaps: {},
};

const BASE = writeRde011(exampleOrder('T-1'), { timestamp: '20250101120000' });

describe('PID-13 phone numbers a sending system stored as numbers', () => {
  it.each([
    ['7700900123', 'if it is 07700900123'],
    ['7700900123.0', 'if it is 07700900123'],
    ['7.7009E+09', 'digits'],
  ])('%s is refused in words for an HL7 file', async (phone, says) => {
    const { orders } = await importHl7Message(Buffer.from(BASE.replace('07700900123^PRN', `${phone}^PRN`)), 'p.hl7', {
      codeLists: DEFAULT_CODE_LISTS,
      profile: PROFILE,
      today: new Date('2025-06-01T00:00:00Z'),
    });
    const found = orders[0]!.order.problems.filter((p) => p.field === 'customer.telephone');
    expect(found).toMatchObject([{ code: 'telephone.format', file: 'p.hl7', message: 1 }]);
    expect(found[0]!.text).toContain('PID-13');
    expect(found[0]!.text).toContain(says);
    expect(found[0]!.text).not.toMatch(/spreadsheet|column|export/i);
    expect(found[0]!.text).toContain('sender');
  });
});

describe('ORC-2 order id sent as a rounded number', () => {
  it('is refused in words for an HL7 file', async () => {
    const { orders } = await importHl7Message(
      Buffer.from(BASE.replace('ORC|NW|T-1|', 'ORC|NW|1.23457E+11|')),
      'p.hl7',
      {
        codeLists: DEFAULT_CODE_LISTS,
        profile: PROFILE,
        today: new Date('2025-06-01T00:00:00Z'),
      },
    );
    const found = orders[0]!.order.problems.filter((p) => p.code === 'orderId.excelMangled');
    expect(found).toMatchObject([{ file: 'p.hl7', message: 1, field: 'prescription.clinicOrderId' }]);
    expect(found[0]!.text).toContain('ORC-2');
    expect(found[0]!.text).not.toMatch(/spreadsheet|column|export|rows/i);
    expect(found[0]!.text).toContain('sender');
  });
});
