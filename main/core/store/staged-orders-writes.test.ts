import { afterEach, describe, expect, it } from 'vitest';
import type { Problem } from '../model/imported-order.js';
import { EARLIER_TWIN_SQL, NOT_ORDERS_SQL, type NewStagedOrder } from './staged-orders-repo.js';
import { openStore, type Store } from './store.js';
import { LOCAL, removeDir, tempDataDir } from './testing/store-fixtures.js';

/**
 * `writtenSince`: which staged orders were rewritten since a count of writes, so what is derived from a batch
 * (the warned-orders list) can look at just those; undefined once the log no longer reaches back that far. And
 * `earlierWithIdentity` (the duplicate check of every edit and find-and-replace), whose cost must not grow with the
 * batch.
 */

let dir: string | undefined;
let store: Store | undefined;
afterEach(() => {
  store?.close();
  if (dir) removeDir(dir);
  store = undefined;
  dir = undefined;
});

const order = (n: number): NewStagedOrder => ({
  clinicCode: 'CLINIC-A',
  clinicOrderId: `ORD-${n}`,
  body: { prescription: { clinicOrderId: `ORD-${n}` } },
  valid: true,
  problems: [],
  provenance: {},
  source: { file: 'a.csv', rows: [n + 1], records: [`CLINIC-A,ORD-${n}`] },
});

/** A batch of orders 1…count and then `again` (their numbers once more), committed. */
async function stagedIds(
  count: number,
  again: number[] = [],
): Promise<{ store: Store; ids: number[]; batchId: number }> {
  dir = tempDataDir('rx-written-');
  store = openStore({ dataDir: dir });
  store.environments.upsert(LOCAL);
  const writer = store.stagedOrders.writer({ environmentId: LOCAL.id, sourceFileName: 'a.csv', route: 'v1' });
  for (let n = 1; n <= count; n += 1) await writer.add(order(n));
  for (const n of again) await writer.add(order(n));
  await writer.end();
  const rows = count + again.length;
  const batchId = store.inTransaction(() => writer.commit({ kind: 'csv', rowCount: rows, invalidCount: 0 })).id;
  const ids = (store.db.prepare('SELECT id FROM staged_orders ORDER BY position').all() as { id: number }[]).map(
    (row) => row.id,
  );
  return { store, ids, batchId };
}

describe('the staged orders rewritten since a number of writes', () => {
  it('names each rewritten order, in the order written', async () => {
    const { store, ids } = await stagedIds(3);
    const start = store.stagedOrders.writes;
    expect(store.stagedOrders.writtenSince(start)).toEqual([]);
    const rewrite = (id: number) => store.stagedOrders.update(id, { ...store.stagedOrders.get(id)!, edited: true });
    rewrite(ids[2]!);
    rewrite(ids[0]!);
    expect(store.stagedOrders.writtenSince(start)).toEqual([ids[2], ids[0]]);
    expect(store.stagedOrders.writtenSince(start + 1)).toEqual([ids[0]]);
    expect(store.stagedOrders.writes).toBe(start + 2);
    // A count not reached yet is no answer.
    expect(store.stagedOrders.writtenSince(start + 3)).toBeUndefined();
  });

  it('forgets what is further back than its log, and says so', async () => {
    const { store, ids } = await stagedIds(1);
    const start = store.stagedOrders.writes;
    const staged = { ...store.stagedOrders.get(ids[0]!)!, edited: true };
    for (let n = 0; n < 2_500; n += 1) store.stagedOrders.update(ids[0]!, staged);
    expect(store.stagedOrders.writtenSince(start)).toBeUndefined();
    const recent = store.stagedOrders.writes - 10;
    expect(store.stagedOrders.writtenSince(recent)).toEqual(new Array(10).fill(ids[0]));
  });
});

describe('an earlier order of the batch with the same identity', () => {
  it('is found through the identity index, at any size of batch', async () => {
    // 3,000 orders; ORD-7 comes again at the end.
    const { store, batchId } = await stagedIds(3000, [7]);
    expect(store.stagedOrders.earlierWithIdentity(batchId, 'CLINIC-A', 'ORD-7', 3001)).toBe(7);
    expect(store.stagedOrders.earlierWithIdentity(batchId, 'CLINIC-A', 'ORD-7', 7)).toBeUndefined();
    expect(store.stagedOrders.earlierWithIdentity(batchId, 'CLINIC-A', 'ORD-2999', 3001)).toBe(2999);
    for (const analysed of [false, true]) {
      if (analysed) store.db.exec('ANALYZE');
      const plan = (
        store.db
          .prepare(`EXPLAIN QUERY PLAN ${EARLIER_TWIN_SQL}`)
          .all({ batchId, clinicCode: 'CLINIC-A', clinicOrderId: 'ORD-7', position: 3001 }) as Array<{
          detail: string;
        }>
      )
        .map((row) => row.detail)
        .join('; ');
      expect(plan).toMatch(
        /USING INDEX staged_orders_by_identity \(batch_id=\? AND clinic_code=\? AND clinic_order_id=\?\)/,
      );
      expect(plan).not.toContain('staged_orders_by_position');
    }
  });
});

describe('the count of entries that are no order at all', () => {
  const problem = (code: string, text = 'why'): Problem => ({ severity: 'error', file: 'a.hl7', code, text });

  it('counts them apart from fixable ones, as edits change them, through their own index', async () => {
    const { store, ids, batchId } = await stagedIds(6);
    const mark = (id: number, problems: Problem[]) =>
      store.stagedOrders.update(id, {
        ...store.stagedOrders.get(id)!,
        edited: true,
        valid: problems.length === 0,
        problems,
      });
    mark(ids[0]!, [problem('hl7.messageType')]);
    mark(ids[1]!, [problem('required'), problem('hl7.noItems')]);
    // A fixable problem whose text quotes a code is not one of them.
    mark(ids[2]!, [problem('required', 'the sender wrote "code":"hl7.noItems" here')]);
    mark(ids[3]!, [problem('required')]);
    expect(store.stagedOrders.counts(batchId)).toMatchObject({ valid: 2, invalid: 4, notOrders: 2 });
    mark(ids[0]!, []);
    expect(store.stagedOrders.counts(batchId)).toMatchObject({ valid: 3, invalid: 3, notOrders: 1 });

    const plan = (store.db.prepare(`EXPLAIN QUERY PLAN ${NOT_ORDERS_SQL}`).all(batchId) as Array<{ detail: string }>)
      .map((row) => row.detail)
      .join('; ');
    expect(plan).toMatch(/USING (COVERING )?INDEX staged_orders_not_orders \(batch_id=\?\)/);
  });
});
