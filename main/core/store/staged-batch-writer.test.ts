import { afterEach, describe, expect, it } from 'vitest';
import type { NewStagedOrder } from './staged-orders-repo.js';
import { StagedRowInserter, openImportConnection, type StagedBatchWriter } from './staged-batch-writer.js';
import { openStore, type Store } from './store.js';
import { LOCAL, removeDir, tempDataDir } from './testing/store-fixtures.js';

/**
 * The import write path (migration 008): rows go straight into `staged_orders` under a hidden batch, through a
 * connection of their own; the batch appears only when the writer commits, and a writer closed without a commit
 * (cancel, refusal, failure), or abandoned by a process that died, leaves nothing.
 */

const dirs: string[] = [];
const stores: Store[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) if (store.isOpen) store.close();
  for (const dir of dirs.splice(0)) removeDir(dir);
});

function open(dataDir = tempDataDir('rx-writer-')): Store {
  if (!dirs.includes(dataDir)) dirs.push(dataDir);
  const store = openStore({ dataDir });
  store.environments.upsert(LOCAL);
  stores.push(store);
  return store;
}

const order = (n: number, valid = true): NewStagedOrder => ({
  clinicCode: 'CLINIC-A',
  clinicOrderId: `ORD-${n}`,
  body: { prescription: { clinicOrderId: `ORD-${n}` } },
  valid,
  problems: valid ? [] : [{ severity: 'error', file: 'a.csv', row: n + 1, code: 'field.required', text: 'x' }],
  provenance: { 'prescription.clinicOrderId': { kind: 'csv', file: 'a.csv', row: n + 1, column: 'clinicOrderId' } },
  source: { file: 'a.csv', rows: [n + 1], records: [`CLINIC-A,ORD-${n}`] },
});

const target = { environmentId: LOCAL.id, sourceFileName: 'a.csv', route: 'v1' as const };
const rowsOf = (store: Store, batchId: number) =>
  (store.db.prepare('SELECT count(*) AS n FROM staged_orders WHERE batch_id = ?').get(batchId) as { n: number }).n;
const hiddenBatches = (store: Store) =>
  (store.db.prepare('SELECT count(*) AS n FROM import_batches WHERE importing = 1').get() as { n: number }).n;

async function addAll(writer: StagedBatchWriter, count: number): Promise<void> {
  for (let n = 1; n <= count; n += 1) await writer.add(order(n, n % 3 !== 0));
}

describe('the staged batch writer', () => {
  it('writes rows under a hidden batch, which appears with its counts only when committed', async () => {
    const store = open();
    const writer = store.stagedOrders.writer(target);
    await addAll(writer, 1200);
    expect(writer.count).toBe(1200);
    expect(writer.validCount).toBe(800);
    // Chunks are written as they fill, before the end, yet nobody sees the batch.
    expect(rowsOf(store, writer.batchId)).toBeGreaterThan(0);
    expect(store.batches.get(writer.batchId)).toBeUndefined();
    expect(store.batches.list()).toEqual([]);

    await writer.end();
    expect(rowsOf(store, writer.batchId)).toBe(1200);
    const batch = store.inTransaction(() => writer.commit({ kind: 'csv', rowCount: 1200, invalidCount: 400 }));
    await writer.close();

    expect(batch).toMatchObject({ id: writer.batchId, kind: 'csv', rowCount: 1200, invalidCount: 400 });
    expect(store.batches.list().map((b) => b.id)).toEqual([writer.batchId]);
    const page = store.stagedOrders.page({ batchId: writer.batchId, offset: 0, limit: 3 });
    expect(page.total).toBe(1200);
    expect(page.orders.map((o) => [o.position, o.clinicOrderId, o.valid])).toEqual([
      [1, 'ORD-1', true],
      [2, 'ORD-2', true],
      [3, 'ORD-3', false],
    ]);
    expect(page.orders[0]!.provenance).toEqual(order(1).provenance);
    expect(page.orders[0]!.source).toEqual(order(1).source);
  });

  it('leaves nothing when closed without a commit, also part-way through', async () => {
    const store = open();
    const writer = store.stagedOrders.writer(target);
    await addAll(writer, 700);
    await writer.close();
    expect(rowsOf(store, writer.batchId)).toBe(0);
    expect(hiddenBatches(store)).toBe(0);
    await writer.close(); // twice is harmless

    const ended = store.stagedOrders.writer(target);
    await addAll(ended, 10);
    await ended.end();
    await ended.close();
    expect(rowsOf(store, ended.batchId)).toBe(0);
    expect(hiddenBatches(store)).toBe(0);
  });

  it('removes what an import of a process that died left behind, when the next import starts', async () => {
    const dataDir = tempDataDir('rx-writer-');
    const first = open(dataDir);
    const abandoned = first.stagedOrders.writer(target);
    await addAll(abandoned, 600);
    await abandoned.end();
    first.close(); // the process dies: no commit, no close

    const second = open(dataDir);
    expect(second.batches.list()).toEqual([]);
    expect(rowsOf(second, abandoned.batchId)).toBe(600);
    // A writer that is running is not a leftover: a second import at the same time keeps it.
    const running = second.stagedOrders.writer(target);
    const next = second.stagedOrders.writer(target);
    expect(rowsOf(second, abandoned.batchId)).toBe(0);
    expect(hiddenBatches(second)).toBe(2);
    await running.close();
    await next.close();
    expect(hiddenBatches(second)).toBe(0);
  });

  it('never writes into a batch that is no longer being imported', async () => {
    const store = open();
    const writer = store.stagedOrders.writer(target);
    await writer.end();
    store.inTransaction(() => writer.commit({ kind: 'csv', rowCount: 0, invalidCount: 0 }));
    const db = openImportConnection(store.file);
    try {
      const inserter = new StagedRowInserter(db, writer.batchId);
      expect(() => inserter.insert([1, null, null, 'NW', '{}', 1, '[]', '{"v":2}', '{"file":"a"}'])).toThrow(
        `batch ${writer.batchId} is not being imported`,
      );
    } finally {
      db.close();
      await writer.close();
    }
    expect(rowsOf(store, writer.batchId)).toBe(0);
    expect(store.batches.get(writer.batchId)).toBeDefined();
  });

  it('refuses a commit before the end, and orders after it', async () => {
    const store = open();
    const writer = store.stagedOrders.writer(target);
    expect(() => writer.commit({ kind: 'csv', rowCount: 0, invalidCount: 0 })).toThrow('end the batch writer');
    await writer.end();
    expect(() => writer.add(order(1))).toThrow('no longer open');
    await writer.close();
  });
});
