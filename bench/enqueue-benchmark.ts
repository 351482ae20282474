import { pathToFileURL } from 'node:url';
import type { NewOrder } from '../main/core/store/orders-repo.js';
import { patientSurnameKeyOf } from '../main/core/store/request-body-fields.js';
import { enqueueOrders, openStore, type Store } from '../main/core/store/store.js';
import { LOCAL, removeDir, sampleOrder, tempDataDir } from '../main/core/store/testing/store-fixtures.js';

/**
 * enqueueOrders against the floor: a bare better-sqlite3 transaction inserting the same rows (orders, items, the
 * surname search keys, the batch count) with prepared statements into an identical store. The floor is handed the
 * keys; enqueueOrders reads each from its request body, which is part of what it costs. Rounds alternate so both see the same machine
 * noise; the medians are compared. Target: ratio >= 0.7.
 *
 *   npx tsx bench/enqueue-benchmark.ts [ordersPerRound=2000] [rounds=7]
 */

export interface EnqueueBenchmark {
  ordersPerRound: number;
  rounds: number;
  rawOrdersPerSecond: number;
  storeOrdersPerSecond: number;
  /** store ÷ raw. */
  ratio: number;
}

function rawEnqueue(
  store: Store,
  batchId: number,
  orders: readonly NewOrder[],
  surnameKeys: ReadonlyArray<string | null>,
): void {
  const db = store.db;
  const insertOrder = db.prepare(
    `INSERT INTO orders (batch_id, environment_id, clinic_code, clinic_order_id, route, request_body, state, created_at,
       updated_at) VALUES (?, ?, ?, ?, ?, ?, 'queued', ?, ?)`,
  );
  const insertItem = db.prepare(
    'INSERT INTO order_items (order_id, position, dmd_code, product_id, medication, quantity) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const insertSurname = db.prepare('INSERT INTO order_surnames (order_id, surname_key) VALUES (?, ?)');
  const count = db.prepare('UPDATE import_batches SET order_count = order_count + ? WHERE id = ?');
  db.transaction(() => {
    const now = new Date().toISOString();
    orders.forEach((order, index) => {
      const id = insertOrder.run(
        batchId,
        LOCAL.id,
        order.clinicCode,
        order.clinicOrderId,
        order.route,
        order.requestBody,
        now,
        now,
      ).lastInsertRowid;
      order.items.forEach((item, position) =>
        insertItem.run(id, position, item.dmdCode, item.productId ?? null, item.medication, item.quantity),
      );
      const key = surnameKeys[index];
      if (key) insertSurname.run(id, key);
    });
    count.run(orders.length, batchId);
  }).immediate();
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export function benchmarkEnqueue(ordersPerRound = 2000, rounds = 7): EnqueueBenchmark {
  const dirs = [tempDataDir('rx-bench-raw-'), tempDataDir('rx-bench-store-')];
  const [raw, subject] = dirs.map((dataDir) => openStore({ dataDir })) as [Store, Store];
  try {
    const batchOf = (store: Store) => {
      store.environments.upsert(LOCAL);
      return store.batches.create({
        environmentId: LOCAL.id,
        sourceFileName: 'bench.csv',
        kind: 'csv',
        rowCount: ordersPerRound,
        invalidCount: 0,
      }).id;
    };
    const rawBatch = batchOf(raw);
    const subjectBatch = batchOf(subject);
    const template = Array.from({ length: ordersPerRound }, () => sampleOrder());
    const rawTimes: number[] = [];
    const storeTimes: number[] = [];
    // Round 0 warms both up and is not counted.
    for (let round = 0; round <= rounds; round += 1) {
      const orders = template.map((order) => ({ ...order, clinicCode: `BENCH-${round}` }));
      const surnameKeys = orders.map((order) => patientSurnameKeyOf(order.route, order.requestBody));
      let start = performance.now();
      rawEnqueue(raw, rawBatch, orders, surnameKeys);
      const rawMs = performance.now() - start;
      start = performance.now();
      enqueueOrders(subject, subjectBatch, orders);
      const storeMs = performance.now() - start;
      if (round > 0) {
        rawTimes.push(rawMs);
        storeTimes.push(storeMs);
      }
    }
    const rawOrdersPerSecond = (ordersPerRound / median(rawTimes)) * 1000;
    const storeOrdersPerSecond = (ordersPerRound / median(storeTimes)) * 1000;
    return {
      ordersPerRound,
      rounds,
      rawOrdersPerSecond: Math.round(rawOrdersPerSecond),
      storeOrdersPerSecond: Math.round(storeOrdersPerSecond),
      ratio: Math.round((storeOrdersPerSecond / rawOrdersPerSecond) * 100) / 100,
    };
  } finally {
    raw.close();
    subject.close();
    for (const dir of dirs) removeDir(dir);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [orders, rounds] = process.argv.slice(2).map(Number);
  const result = benchmarkEnqueue(orders || undefined, rounds || undefined);
  console.log(JSON.stringify(result));
  if (result.ratio < 0.7) process.exitCode = 1;
}
