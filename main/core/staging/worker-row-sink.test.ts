import { statSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import type { StagedRowSink } from '../store/staged-batch-writer.js';
import type { NewStagedOrder } from '../store/staged-orders-repo.js';
import { openStore, type Store } from '../store/store.js';
import { LOCAL, removeDir, tempDataDir } from '../store/testing/store-fixtures.js';
import { workerRowSink, type RowWorkerData } from './worker-row-sink.js';

/**
 * An import's rows written by a worker thread: they arrive in the store in order, a worker that cannot start
 * leaves the rows to this thread (those already posted included), and a write that fails in the worker fails the
 * import with the reason.
 */

const dirs: string[] = [];
const stores: Store[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) if (store.isOpen) store.close();
  for (const dir of dirs.splice(0)) removeDir(dir);
});

function open(): Store {
  const dataDir = tempDataDir('rx-worker-sink-');
  dirs.push(dataDir);
  const store = openStore({ dataDir });
  store.environments.upsert(LOCAL);
  stores.push(store);
  return store;
}

const order = (n: number): NewStagedOrder => ({
  clinicCode: 'CLINIC-A',
  clinicOrderId: `ORD-${n}`,
  body: { n },
  valid: true,
  problems: [],
  provenance: {},
  source: { file: 'a.csv', rows: [n + 1], records: [`row ${n}`] },
});

const target = { environmentId: LOCAL.id, sourceFileName: 'a.csv', route: 'v1' as const };

/** Stages `count` orders through a worker sink started by `start`; returns the sink and the batch's positions. */
async function stage(store: Store, count: number, start?: (data: RowWorkerData) => Worker) {
  let sink: (StagedRowSink & { inWorker: boolean }) | undefined;
  const writer = store.stagedOrders.writer(target, (file, batchId) => (sink = workerRowSink(file, batchId, start)));
  try {
    for (let n = 1; n <= count; n += 1) await writer.add(order(n));
    await writer.end();
    store.inTransaction(() => writer.commit({ kind: 'csv', rowCount: count, invalidCount: 0 }));
  } finally {
    await writer.close();
  }
  const positions = store.db
    .prepare('SELECT position, body FROM staged_orders WHERE batch_id = ? ORDER BY position')
    .all(writer.batchId) as { position: number; body: string }[];
  return { sink: sink!, batchId: writer.batchId, positions };
}

describe('the worker row sink', () => {
  it('writes every row through a worker thread, in order', async () => {
    const store = open();
    const { sink, positions } = await stage(store, 2600);
    expect(sink.inWorker).toBe(true);
    expect(positions).toHaveLength(2600);
    expect(positions.every((row, i) => row.position === i + 1 && row.body === `{"n":${i + 1}}`)).toBe(true);
  });

  it('copies what it wrote into the database file while it waits for more, and loses no row', async () => {
    const store = open();
    const file = store.db.name;
    const before = statSync(file).size;
    const writer = store.stagedOrders.writer(target, (path, batchId) => workerRowSink(path, batchId));
    const pad = 'x'.repeat(1000);
    try {
      // About 2.5 MB of rows, then a pause: the worker checkpoints while idle, before the import ends.
      for (let n = 1; n <= 2500; n += 1) await writer.add({ ...order(n), body: { n, pad } });
      // Waits for the checkpoint itself, bounded by the clock (not a count of sleeps): a loaded machine's worker
      // may still be writing the last rows when the pause begins.
      let size = before;
      const deadline = Date.now() + 20_000;
      while (size < before + 2_000_000 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        size = statSync(file).size;
      }
      expect(size).toBeGreaterThanOrEqual(before + 2_000_000);
      for (let n = 2501; n <= 2600; n += 1) await writer.add({ ...order(n), body: { n, pad } });
      await writer.end();
      store.inTransaction(() => writer.commit({ kind: 'csv', rowCount: 2600, invalidCount: 0 }));
    } finally {
      await writer.close();
    }
    const rows = store.db
      .prepare('SELECT position, body FROM staged_orders WHERE batch_id = ? ORDER BY position')
      .all(writer.batchId) as { position: number; body: string }[];
    expect(rows).toHaveLength(2600);
    expect(rows.every((row, i) => row.position === i + 1 && row.body === `{"n":${i + 1},"pad":"${pad}"}`)).toBe(true);
  });

  it('writes on this thread when the worker cannot start, the rows already posted to it included', async () => {
    const store = open();
    const dies = () => new Worker('throw new Error("no worker here")', { eval: true });
    const { sink, positions } = await stage(store, 2600, dies);
    expect(sink.inWorker).toBe(false);
    expect(positions.map((row) => row.position)).toEqual(Array.from({ length: 2600 }, (_, i) => i + 1));

    const missing = () => {
      throw new Error('the staged-rows worker is not installed');
    };
    const direct = await stage(store, 10, missing);
    expect(direct.sink.inWorker).toBe(false);
    expect(direct.positions).toHaveLength(10);
  });

  it('fails the import with the reason when a write fails in the worker, and leaves nothing', async () => {
    const store = open();
    const writer = store.stagedOrders.writer(target, (file) => workerRowSink(file, 999_999));
    try {
      const adding = (async () => {
        for (let n = 1; n <= 2000; n += 1) await writer.add(order(n));
        await writer.end();
      })();
      await expect(adding).rejects.toThrow('writing the imported orders failed: batch 999999 is not being imported');
    } finally {
      await writer.close();
    }
    expect(store.db.prepare('SELECT count(*) AS n FROM staged_orders').get()).toEqual({ n: 0 });
    expect(store.db.prepare('SELECT count(*) AS n FROM import_batches').get()).toEqual({ n: 0 });
  });
});
