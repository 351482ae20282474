import { afterEach, describe, expect, it } from 'vitest';
import { EARLIER_TWIN_SQL, type NewStagedOrder } from './staged-orders-repo.js';
import { openStore, type Store } from './store.js';
import { LOCAL, removeDir, tempDataDir } from './testing/store-fixtures.js';

/**
 * `earlierWithIdentity` (the duplicate check of every edit and find-and-replace) reads the orders with that
 * identity, not the batch up to the order: each lookup's cost must not grow with the batch.
 */

let dir: string | undefined;
let store: Store | undefined;
afterEach(() => {
  store?.close();
  if (dir) removeDir(dir);
  store = undefined;
  dir = undefined;
});

const order = (id: string, line: number): NewStagedOrder => ({
  clinicCode: 'CLINIC-A',
  clinicOrderId: id,
  body: { prescription: { clinicOrderId: id } },
  valid: true,
  problems: [],
  provenance: {},
  source: { file: 'a.csv', rows: [line], records: [`CLINIC-A,${id}`] },
});

describe('an earlier order of the batch with the same identity', () => {
  it('is found through the identity index, at any size of batch', async () => {
    dir = tempDataDir('rx-twin-');
    store = openStore({ dataDir: dir });
    store.environments.upsert(LOCAL);
    const writer = store.stagedOrders.writer({ environmentId: LOCAL.id, sourceFileName: 'a.csv', route: 'v1' });
    // 3,000 orders; ORD-7 comes again at the end.
    for (let n = 1; n <= 3000; n += 1) await writer.add(order(`ORD-${n}`, n + 1));
    await writer.add(order('ORD-7', 3002));
    await writer.end();
    const batchId = store.inTransaction(() => writer.commit({ kind: 'csv', rowCount: 3001, invalidCount: 0 })).id;

    expect(store.stagedOrders.earlierWithIdentity(batchId, 'CLINIC-A', 'ORD-7', 3001)).toBe(7);
    expect(store.stagedOrders.earlierWithIdentity(batchId, 'CLINIC-A', 'ORD-7', 7)).toBeUndefined();
    expect(store.stagedOrders.earlierWithIdentity(batchId, 'CLINIC-A', 'ORD-2999', 3001)).toBe(2999);

    for (const analysed of [false, true]) {
      if (analysed) store.db.exec('ANALYZE');
      const plan = (
        store.db.prepare(`EXPLAIN QUERY PLAN ${EARLIER_TWIN_SQL}`).all(batchId, 'CLINIC-A', 'ORD-7', 3001) as Array<{
          detail: string;
        }>
      ).map((row) => row.detail);
      expect(plan.join('; ')).toMatch(
        /USING INDEX staged_orders_by_identity \(batch_id=\? AND clinic_code=\? AND clinic_order_id=\?\)/,
      );
      expect(plan.join('; ')).not.toContain('staged_orders_by_position');
    }
  });
});
