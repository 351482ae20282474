import { describe, expect, it } from 'vitest';
import type { EnrichmentWarning, OrderEnrichment } from '../../../../shared/enrichment-views.js';
import { ServiceMarks } from './service-marks.js';
import { stagedOrderAt } from './testing/staged-order-view.js';

const order = (id: number) => stagedOrderAt(id, id);

const warning = (stagedOrderId: number): EnrichmentWarning => ({
  source: 'service',
  stagedOrderId,
  itemIndex: 0,
  field: 'prescribedItems.0.dmdCode',
  code: 'service.outOfStock',
  text: 'Out of stock at the service.',
  checkedAt: '2026-01-05T10:00:00.000Z',
});

/** Answers every read; odd orders have a warning. `hold` keeps answers back until `release`. */
function server() {
  const requests: number[][] = [];
  let held: Array<() => void> | undefined;
  let failing = false;
  const fetch = (ids: number[]) => {
    requests.push(ids);
    if (failing) return Promise.reject(new Error('disconnected'));
    const views = ids.map(
      (id) => ({ stagedOrderId: id, warnings: id % 2 ? [warning(id)] : [] }) as unknown as OrderEnrichment,
    );
    if (!held) return Promise.resolve(views);
    return new Promise<OrderEnrichment[]>((resolve) => held!.push(() => resolve(views)));
  };
  return {
    requests,
    fetch,
    hold: () => (held = []),
    release: () => {
      const waiting = held ?? [];
      held = undefined;
      waiting.forEach((resume) => resume());
    },
    fail: (on: boolean) => (failing = on),
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('ServiceMarks: service warnings for the orders the grid shows', () => {
  it('reads loaded orders in chunks the contract allows, once each, and serves their warnings', async () => {
    const { requests, fetch } = server();
    const marks = new ServiceMarks(fetch);
    const orders = Array.from({ length: 450 }, (_, i) => order(i + 1));
    marks.want(orders);
    marks.want(orders);
    await settle();
    expect(requests.map((ids) => ids.length)).toEqual([200, 200, 50]);
    expect(marks.warnings(orders[0]!)).toEqual([warning(1)]);
    expect(marks.warnings(orders[1]!)).toEqual([]);
    marks.want(orders);
    expect(requests).toHaveLength(3);
  });

  it('reads an edited order again, and forgets everything (answers in flight too) when a check finishes', async () => {
    const { requests, fetch, hold, release } = server();
    const marks = new ServiceMarks(fetch);
    const first = order(1);
    marks.want([first]);
    await settle();
    const edited = { ...first, edited: true };
    expect(marks.warnings(edited)).toBeUndefined();
    hold();
    marks.want([edited]);
    marks.reset();
    release();
    await settle();
    // The answer asked for before the reset is dropped: it may predate the check.
    expect(marks.warnings(edited)).toBeUndefined();
    marks.want([edited]);
    await settle();
    expect(marks.warnings(edited)).toEqual([warning(1)]);
    expect(requests).toEqual([[1], [1], [1]]);
  });

  it('after a failed read shows no marks and does not ask again until the next check', async () => {
    const { requests, fetch, fail } = server();
    const marks = new ServiceMarks(fetch);
    fail(true);
    const orders = [order(1), order(2)];
    marks.want(orders);
    await settle();
    expect(marks.error).toBeInstanceOf(Error);
    expect(marks.warnings(orders[0]!)).toEqual([]);
    marks.want(orders);
    expect(requests).toHaveLength(1);
    fail(false);
    marks.reset();
    marks.want(orders);
    await settle();
    expect(marks.warnings(orders[0]!)).toEqual([warning(1)]);
    expect(marks.error).toBeUndefined();
  });
});
