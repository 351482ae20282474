import { describe, expect, it } from 'vitest';
import { ContractError } from '../../../../shared/errors.js';
import { fileResult } from './HandOverList.js';

/** One line per file when several are imported in turn: what the admin reads for each. */

const summary = {} as never;

describe('fileResult', () => {
  it('counts the staged orders', () => {
    const outcome = {
      status: 'staged',
      batchId: 1,
      orders: 1200,
      valid: 1190,
      invalid: 10,
      notOrders: 0,
      summary,
    } as const;
    expect(fileResult('monday.csv', { outcome })).toEqual({
      name: 'monday.csv',
      ok: true,
      text: '1,200 orders: 1,190 valid, 10 with errors',
    });
    // An ADT message among a clinic system's orders is counted for what it is.
    const mixed = { ...outcome, orders: 3, valid: 1, invalid: 2, notOrders: 1 };
    expect(fileResult('tuesday.hl7', { outcome: mixed }).text).toBe(
      '3 orders: 1 valid, 2 with errors (1 of them no order at all)',
    );
  });

  it("gives a refused file's first problem, a cancel, and a failure's own sentence", () => {
    const problem = { text: 'The file is empty.' } as never;
    expect(fileResult('a.csv', { outcome: { status: 'refused', problems: [problem], summary } })).toMatchObject({
      ok: false,
      text: 'cannot be imported: The file is empty.',
    });
    expect(fileResult('b.csv', { outcome: { status: 'cancelled' } })).toMatchObject({
      ok: false,
      text: 'cancelled; nothing was staged',
    });
    const error = new ContractError({ code: 'invalid-input', message: '/x/c.csv: is not a file' });
    expect(fileResult('c.csv', { error })).toEqual({ name: 'c.csv', ok: false, text: '/x/c.csv: is not a file' });
  });
});
