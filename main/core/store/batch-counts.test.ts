import { afterEach, describe, expect, it } from 'vitest';
import { enqueueOrders, openStore, type Store } from './store.js';
import { LOCAL, manualClock, removeDir, sampleOrder, tempDataDir } from './testing/store-fixtures.js';

let dir: string | undefined;
let store: Store | undefined;
afterEach(() => {
  store?.close();
  if (dir) removeDir(dir);
  store = dir = undefined;
});

function batchOf(s: Store, name: string): number {
  return s.batches.create({
    environmentId: LOCAL.id,
    sourceFileName: name,
    kind: 'json',
    rowCount: 5,
    invalidCount: 0,
  }).id;
}

const total = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);

// Issue #13: each batch's own counts, for "this batch's N of M" (read through indexes: see countByStateInBatch).
describe('orders per state in one batch', () => {
  it('counts a batch accepted at once, and one accepted in parts around another, each exactly', () => {
    dir = tempDataDir();
    store = openStore({ dataDir: dir, now: manualClock().now });
    store.environments.upsert(LOCAL);
    const s = store;
    const a = batchOf(s, 'a.csv');
    const b = batchOf(s, 'b.csv');
    const [a1] = enqueueOrders(s, a, [sampleOrder({ state: 'queued' }), sampleOrder({ state: 'queued' })]);
    enqueueOrders(s, b, [sampleOrder({ state: 'queued' }), sampleOrder({ state: 'queued' })]);
    // Batch b is one span of ids; batch a is two, with b's orders between them.
    expect(s.orders.countByStateInBatch(LOCAL.id, b)).toMatchObject({ queued: 2, created: 0 });
    enqueueOrders(s, a, [sampleOrder({ state: 'queued' })]);
    s.orders.transition(a1!, ['queued'], 'held', {}, { actor: 'system', action: 'order.held' });

    const countsA = s.orders.countByStateInBatch(LOCAL.id, a);
    expect(countsA).toMatchObject({ queued: 2, held: 1 });
    expect(total(countsA)).toBe(3);
    const countsB = s.orders.countByStateInBatch(LOCAL.id, b);
    expect(countsB).toMatchObject({ queued: 2, held: 0 });
    expect(total(countsB)).toBe(2);
    // A batch with no orders: every state, all zero.
    expect(total(s.orders.countByStateInBatch(LOCAL.id, batchOf(s, 'empty.csv')))).toBe(0);
  });
});
