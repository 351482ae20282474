import { describe, expect, it } from 'vitest';
import type { BatchView } from '../../../../shared/staging-views.js';
import { leftInPreview } from './left-in-preview.js';

function batch(id: number, counts: Partial<BatchView['counts']>, discardedAt: string | null = null): BatchView {
  return {
    id,
    environmentId: 'local-sandbox',
    sourceFileName: `orders-${id}.csv`,
    kind: 'csv',
    route: 'v1',
    createdAt: '2026-12-07T09:00:00.000Z',
    counts: { total: 0, staged: 0, valid: 0, invalid: 0, notOrders: 0, accepted: 0, ...counts },
    summary: null,
    discardedAt,
    undo: null,
    redo: null,
  };
}

describe('orders imported and not accepted, on the Submissions screen', () => {
  it('counts what is left in each batch, naming the batches and their errors', () => {
    const left = leftInPreview([
      batch(3, { total: 6, staged: 1, invalid: 1, accepted: 5 }),
      batch(2, { total: 4, staged: 4, valid: 4 }),
      batch(1, { total: 2, accepted: 2 }),
    ]);
    expect(left).toEqual({
      sentence:
        '5 orders in 2 batches are imported and not accepted: nothing of them is sent until they are accepted in the Preview.',
      batches: [
        { batchId: 3, text: 'Batch 3: orders-3.csv (1 order, 1 with errors)' },
        { batchId: 2, text: 'Batch 2: orders-2.csv (4 orders)' },
      ],
      more: 0,
    });
  });

  it('leaves out discarded batches and messages that are no order at all, and says nothing when none is left', () => {
    expect(leftInPreview([batch(2, { total: 3, staged: 3, valid: 3 }, '2026-12-07T10:00:00.000Z')])).toBeUndefined();
    // An intake batch whose one staged entry is an ADT message: no one is to accept it.
    expect(leftInPreview([batch(1, { total: 3, staged: 1, invalid: 1, notOrders: 1, accepted: 2 })])).toBeUndefined();
    expect(leftInPreview([])).toBeUndefined();
    const one = leftInPreview([batch(4, { total: 2, staged: 2, invalid: 2, notOrders: 1 })]);
    expect(one?.sentence).toMatch(/^1 order in 1 batch is imported and not accepted/);
    expect(one?.batches).toEqual([{ batchId: 4, text: 'Batch 4: orders-4.csv (1 order, 1 with errors)' }]);
  });

  it('names five batches and counts the rest', () => {
    const many = Array.from({ length: 7 }, (_, i) => batch(7 - i, { total: 1, staged: 1, valid: 1 }));
    const left = leftInPreview(many)!;
    expect(left.batches.map((entry) => entry.batchId)).toEqual([7, 6, 5, 4, 3]);
    expect(left.more).toBe(2);
  });
});
