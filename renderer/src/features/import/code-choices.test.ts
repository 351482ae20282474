import { describe, expect, it } from 'vitest';
import { DEFAULT_CODE_LISTS } from '../../../../shared/environment.js';
import { codeChoices, isCodeListField } from './code-choices.js';

describe('HL7 profile code choices', () => {
  it('offers the environment’s codes, none first', () => {
    expect(codeChoices('paymentType', DEFAULT_CODE_LISTS, undefined, '').map((c) => c.value)).toEqual([
      '',
      'Account',
      'Card',
      'Invoice',
    ]);
    expect(codeChoices('currencyCode', DEFAULT_CODE_LISTS, ['XX'], 'GBP').map((c) => c.value)).toEqual(['', 'GBP']);
  });

  it('adds the service’s couriers the list lacks, and keeps a saved value neither has, saying so', () => {
    const choices = codeChoices('courierCode', DEFAULT_CODE_LISTS, ['RMT24', 'UPS'], 'Royal Mail');
    expect(choices.map((c) => c.label)).toEqual([
      '(none)',
      'RMT24',
      'RMT48',
      'DPD',
      'UPS (from the service)',
      'Royal Mail (not in the list)',
    ]);
  });

  it('knows which fields are chosen from a list', () => {
    expect(['paymentType', 'courierCode', 'currencyCode', 'title'].map(isCodeListField)).toEqual([
      true,
      true,
      true,
      false,
    ]);
  });
});
