import { describe, expect, it } from 'vitest';
import { applyFieldEdits } from './order-edits.js';

/**
 * An amount typed into the preview is read as the importer reads the same cell of a file (amounts.ts): a currency
 * sign or code that is the order's currency is dropped and the number kept; another currency is refused, saying why.
 */
const context = { today: new Date('2026-01-10T00:00:00Z'), at: '2026-01-10T09:00:00.000Z', file: 'batch.csv' };
const order = (currencyCode?: string) => ({
  prescription: { clinicOrderId: 'A1', ...(currencyCode ? { currencyCode } : {}) },
  clinicInformation: {},
});
const edit = (body: unknown, path: string, value: string) => applyFieldEdits(body, {}, [{ path, value }], context);

describe('editing an amount written with its currency', () => {
  it.each([
    ['£12.50', 12.5],
    ['12.50 GBP', 12.5],
    ['GBP 12.50', 12.5],
    ['gbp 3', 3],
    ['-£5', -5],
  ])('reads %s in a GBP order as the number %s, with no problem', (typed, value) => {
    const outcome = edit(order('GBP'), 'prescription.clinicOrderValue', typed);
    expect(outcome.problems).toEqual([]);
    expect(outcome.body).toMatchObject({ prescription: { clinicOrderValue: value } });
  });

  it('reads a prescriber fee the same way', () => {
    const outcome = edit(order('EUR'), 'clinicInformation.prescriberFee', '€3');
    expect(outcome.problems).toEqual([]);
    expect(outcome.body).toMatchObject({ clinicInformation: { prescriberFee: 3 } });
  });

  it('refuses another currency than the order’s, naming both and what to do', () => {
    const outcome = edit(order('GBP'), 'prescription.clinicOrderValue', '€3');
    expect(outcome.problems).toEqual([
      expect.objectContaining({
        code: 'value.currency',
        field: 'prescription.clinicOrderValue',
        text: expect.stringMatching(
          /euros.*currency code is GBP: write the amount in GBP as a number alone/,
        ) as unknown,
      }),
    ]);
    // Kept as typed, so the cell shows what is wrong with it.
    expect(outcome.body).toMatchObject({ prescription: { clinicOrderValue: '€3' } });
  });

  it('says the order has no currency code to check a sign against', () => {
    const outcome = edit(order(), 'prescription.clinicOrderValue', '£12.50');
    expect(outcome.problems[0]?.text).toMatch(/no currency code to check it against: fill in the currency code/);
  });

  it('checks against the currency code edited in the same change', () => {
    const outcome = applyFieldEdits(
      order('GBP'),
      {},
      [
        { path: 'prescription.clinicOrderValue', value: '€3' },
        { path: 'prescription.currencyCode', value: 'eur' },
      ],
      context,
    );
    expect(outcome.problems).toEqual([]);
    expect(outcome.body).toMatchObject({ prescription: { clinicOrderValue: 3, currencyCode: 'EUR' } });
  });
});
