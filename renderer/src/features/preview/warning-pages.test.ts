import { describe, expect, it } from 'vitest';
import { BatchPages } from './batch-pages.js';
import { positionRuns, warningPages, type WarningReads } from './warning-pages.js';
import { stagedOrderAt } from './testing/staged-order-view.js';

const order = (position: number) => stagedOrderAt(position);

/** A batch of `total` orders of which those at `warned` positions have service warnings; reads are recorded. */
function batch(total: number, warned: readonly number[]) {
  const reads: Array<{ call: 'warnings' | 'orders'; offset: number; limit: number }> = [];
  const api: WarningReads<{ total: number }> = {
    warnings: (offset, limit) => {
      reads.push({ call: 'warnings', offset, limit });
      const orders = warned.slice(offset, offset + limit).map((position) => ({
        stagedOrderId: position + 1000,
        position,
      }));
      return Promise.resolve({ orders, total: warned.length });
    },
    orders: (offset, limit) => {
      reads.push({ call: 'orders', offset, limit });
      const orders = [];
      for (let i = offset; i < Math.min(total, offset + limit); i += 1) orders.push(order(i + 1));
      return Promise.resolve({ batch: { total }, orders, total });
    },
  };
  return { reads, api };
}

describe('positionRuns: the reads that fetch scattered orders by position', () => {
  it('joins neighbours into one read, splits far-apart ones, and caps a read', () => {
    expect(positionRuns([])).toEqual([]);
    expect(positionRuns([5])).toEqual([{ start: 5, count: 1 }]);
    expect(positionRuns([3, 4, 5, 9])).toEqual([{ start: 3, count: 7 }]);
    expect(positionRuns([1, 200, 201, 5000])).toEqual([
      { start: 1, count: 1 },
      { start: 200, count: 2 },
      { start: 5000, count: 1 },
    ]);
    // Unsorted and repeated positions are read once, in order.
    expect(positionRuns([9, 3, 3])).toEqual([{ start: 3, count: 7 }]);
    expect(positionRuns([1, 10, 20, 30], 15)).toEqual([
      { start: 1, count: 10 },
      { start: 20, count: 11 },
    ]);
  });
});

describe('warningPages: the preview filtered to orders with service warnings', () => {
  it('shows exactly the warned orders, in file order, and pages through them', async () => {
    const warned = [2, 3, 40, 41, 900, 9_999];
    const { api } = batch(10_000, warned);
    const pages = new BatchPages(warningPages(api), { pageSize: 4 });
    await pages.ensure(0, 5);
    expect(pages.total).toBe(6);
    const shown = [0, 1, 2, 3, 4, 5].map((index) => pages.get(index)?.position);
    expect(shown).toEqual(warned);
    expect(pages.get(6)).toBeUndefined();
  });

  it('reads rows in few requests, never the whole batch', async () => {
    const { api, reads } = batch(100_000, [10, 12, 15, 50_000]);
    const page = await warningPages(api)(0, 50);
    expect(page.orders.map((o) => o.id)).toEqual([1010, 1012, 1015, 51_000]);
    expect(reads.filter((read) => read.call === 'orders')).toEqual([
      { call: 'orders', offset: 9, limit: 6 },
      { call: 'orders', offset: 49_999, limit: 1 },
    ]);
  });

  it('is empty (with the batch for the header) when no order has warnings', async () => {
    const { api } = batch(30, []);
    const page = await warningPages(api)(0, 50);
    expect(page).toEqual({ batch: { total: 30 }, orders: [], total: 0 });
  });

  it('fails the page rather than show another order when the batch changed in between', async () => {
    const { api } = batch(30, [5]);
    const moved: WarningReads<{ total: number }> = {
      ...api,
      warnings: () => Promise.resolve({ orders: [{ stagedOrderId: 1005, position: 6 }], total: 1 }),
    };
    await expect(warningPages(moved)(0, 50)).rejects.toThrow(/The batch changed/);
  });
});
