import { afterEach, describe, expect, it } from 'vitest';
import { LOOKUP_FAILURES } from '../../../shared/enrichment-views.js';
import { ANSWER_KINDS, type StagedItemRow } from './enrichment-repo.js';
import { openStore, type Store } from './store.js';
import { LOCAL, manualClock, removeDir, sampleOrder, tempDataDir } from './testing/store-fixtures.js';

const EIGHTEEN = '177803111000001105';

/** A batch with staged orders whose bodies are exactly the given JSON texts (as the store keeps them). */
function stageBodies(store: Store, bodies: string[]): { batchId: number; ids: number[] } {
  const batch = store.batches.create({
    environmentId: LOCAL.id,
    sourceFileName: 'orders.csv',
    kind: 'csv',
    rowCount: bodies.length,
    invalidCount: 0,
  });
  const insert = store.db.prepare(`
    INSERT INTO staged_orders (batch_id, position, order_control, body, valid, problems, provenance, source, state)
    VALUES (?, ?, 'NW', ?, 1, '[]', '{}', '{"file":"orders.csv"}', 'staged')`);
  const ids = bodies.map((body, index) => Number(insert.run(batch.id, index + 1, body).lastInsertRowid));
  return { batchId: batch.id, ids };
}

describe('the enrichment repository', () => {
  const dirs: string[] = [];
  const stores: Store[] = [];
  afterEach(() => {
    for (const store of stores.splice(0)) store.close();
    for (const dir of dirs.splice(0)) removeDir(dir);
  });

  function open(now?: () => Date): { store: Store; dataDir: string } {
    const dataDir = tempDataDir('rx-enrichment-');
    dirs.push(dataDir);
    const store = openStore({ dataDir, ...(now ? { now } : {}) });
    stores.push(store);
    store.environments.upsert(LOCAL);
    return { store, dataDir };
  }

  it('reads every staged item from the bodies: 18-digit codes exactly, lossy numbers never, odd bodies safely', () => {
    const { store } = open();
    const { batchId, ids } = stageBodies(store, [
      JSON.stringify({
        prescription: { courierCode: 'RMT24' },
        prescribedItems: [
          { dmdCode: EIGHTEEN, pack: 2, quantity: 8, productId: 1023 },
          { dmdCode: '322236009', quantity: 64 },
        ],
      }),
      // A number token beyond 2^53 has lost digits once parsed: not a code to ask about. A safe one is its digits.
      `{"prescription":{"courierCode":7},"prescribedItems":[{"dmdCode":${EIGHTEEN},"pack":"two","quantity":1.5},{"dmdCode":322236009}]}`,
      JSON.stringify({ prescription: {}, prescribedItems: 'none' }),
      JSON.stringify({ prescribedItems: ['text', null] }),
      'not JSON at all',
    ]);
    const rows = [...store.enrichment.stagedItems(batchId)];
    expect(rows).toEqual([
      {
        stagedOrderId: ids[0],
        position: 1,
        courierCode: 'RMT24',
        itemIndex: 0,
        dmdCode: EIGHTEEN,
        productId: 1023,
        pack: 2,
        quantity: 8,
        editedAt: null,
        acceptedAt: null,
      },
      {
        stagedOrderId: ids[0],
        position: 1,
        courierCode: 'RMT24',
        itemIndex: 1,
        dmdCode: '322236009',
        productId: null,
        pack: null,
        quantity: 64,
        editedAt: null,
        acceptedAt: null,
      },
      {
        stagedOrderId: ids[1],
        position: 2,
        courierCode: null,
        itemIndex: 0,
        dmdCode: null,
        productId: null,
        pack: null,
        quantity: null,
        editedAt: null,
        acceptedAt: null,
      },
      {
        stagedOrderId: ids[1],
        position: 2,
        courierCode: null,
        itemIndex: 1,
        dmdCode: '322236009',
        productId: null,
        pack: null,
        quantity: null,
        editedAt: null,
        acceptedAt: null,
      },
      // No items array: one row for the order (its courier), no item.
      {
        stagedOrderId: ids[2],
        position: 3,
        courierCode: null,
        itemIndex: null,
        dmdCode: null,
        productId: null,
        pack: null,
        quantity: null,
        editedAt: null,
        acceptedAt: null,
      },
      ...[0, 1].map((itemIndex) => ({
        stagedOrderId: ids[3],
        position: 4,
        courierCode: null,
        itemIndex,
        dmdCode: null,
        productId: null,
        pack: null,
        quantity: null,
        editedAt: null,
        acceptedAt: null,
      })),
      {
        stagedOrderId: ids[4],
        position: 5,
        courierCode: null,
        itemIndex: null,
        dmdCode: null,
        productId: null,
        pack: null,
        quantity: null,
        editedAt: null,
        acceptedAt: null,
      },
    ]);
    // Reading some orders by id gives the same rows, and nothing of another batch.
    expect(store.enrichment.itemsOf(batchId, [ids[1]!])).toEqual([rows[2], rows[3]]);
    expect(store.enrichment.itemsOf(batchId + 1, [ids[1]!])).toEqual([]);
    expect(store.enrichment.pageIds(batchId, 1, 2)).toEqual([ids[1], ids[2]]);
  });

  it('gives each item row when its order was edited and accepted (what a cancelled check covered)', () => {
    const clock = manualClock('2026-01-05T10:00:00.000Z');
    const { store } = open(clock.now);
    const body = JSON.stringify({ prescribedItems: [{ dmdCode: '322236009', pack: 1 }] });
    const { batchId, ids } = stageBodies(store, [body, body, body]);
    const [asImported, edited, accepted] = ids as [number, number, number];
    store.db.prepare('UPDATE staged_orders SET edited_at = ? WHERE id = ?').run('2026-01-05T09:30:00.000Z', edited);
    clock.advance(60_000);
    const [orderId] = store.orders.enqueue(batchId, [sampleOrder()]);
    expect(store.stagedOrders.markAccepted(accepted, orderId!)).toBe(true);

    const times = (rows: StagedItemRow[]) => rows.map((row) => [row.stagedOrderId, row.editedAt, row.acceptedAt]);
    expect(times(store.enrichment.itemsOf(batchId, ids))).toEqual([
      [asImported, null, null],
      [edited, '2026-01-05T09:30:00.000Z', null],
      [accepted, null, '2026-01-05T10:01:00.000Z'],
    ]);
    // A check walks only the staged ones.
    expect(times([...store.enrichment.stagedItems(batchId)])).toEqual([
      [asImported, null, null],
      [edited, '2026-01-05T09:30:00.000Z', null],
    ]);
  });

  it('keeps the last good answer with its time when a later attempt fails, and clears the failure on success', () => {
    const clock = manualClock('2026-01-05T10:00:00.000Z');
    const { store } = open(clock.now);
    store.enrichment.write(LOCAL.id, [
      { kind: 'stock', key: EIGHTEEN, value: { inStock: false } },
      { kind: 'stock', key: '322236009', failure: 'signed-out', message: '' },
    ]);
    clock.advance(60_000);
    store.enrichment.write(LOCAL.id, [{ kind: 'stock', key: EIGHTEEN, failure: 'offline', message: 'x'.repeat(900) }]);
    const answers = store.enrichment.answers(LOCAL.id, 'stock', [EIGHTEEN, '322236009', '999999']);
    expect(answers.get(EIGHTEEN)).toEqual({
      kind: 'stock',
      key: EIGHTEEN,
      value: { inStock: false },
      fetchedAt: '2026-01-05T10:00:00.000Z',
      failure: 'offline',
      failureMessage: 'x'.repeat(500),
      failedAt: '2026-01-05T10:01:00.000Z',
    });
    expect(answers.get('322236009')).toMatchObject({ value: null, fetchedAt: null, failure: 'signed-out' });
    expect(answers.has('999999')).toBe(false);

    clock.advance(60_000);
    store.enrichment.write(LOCAL.id, [{ kind: 'stock', key: EIGHTEEN, value: { inStock: true } }]);
    expect(store.enrichment.answers(LOCAL.id, 'stock', [EIGHTEEN]).get(EIGHTEEN)).toMatchObject({
      value: { inStock: true },
      fetchedAt: '2026-01-05T10:02:00.000Z',
      failure: null,
      failedAt: null,
    });
    // Answers are per environment: another environment has none.
    expect(store.enrichment.answers('cloudrx-sandbox', 'stock', [EIGHTEEN]).size).toBe(0);
  });

  it('answers many keys at once (past one query’s worth) and keeps the kinds apart', () => {
    const { store } = open();
    const keys = Array.from({ length: 1000 }, (_, i) => String(100_000 + i));
    store.enrichment.write(
      LOCAL.id,
      keys.map((key) => ({ kind: 'product' as const, key, value: { products: [] } })),
    );
    expect(store.enrichment.answers(LOCAL.id, 'product', keys).size).toBe(1000);
    expect(store.enrichment.answers(LOCAL.id, 'price', keys).size).toBe(0);
  });

  it('refuses what the schema does not allow, and its value lists match the code', () => {
    const { store } = open();
    const sql = (
      store.db.prepare("SELECT sql FROM sqlite_master WHERE name = 'service_answers'").get() as {
        sql: string;
      }
    ).sql;
    const listAfter = (marker: string) =>
      /\(([^)]*)\)/
        .exec(sql.slice(sql.indexOf(marker)))![1]!
        .split(',')
        .map((value) => value.trim().replace(/'/g, ''));
    expect(listAfter('kind IN')).toEqual([...ANSWER_KINDS]);
    expect(listAfter('failure IN')).toEqual([...LOOKUP_FAILURES]);
    const insert = (kind: string, key: string, value: string | null, failure: string | null) =>
      store.db
        .prepare(
          `INSERT INTO service_answers (environment_id, kind, key, value, fetched_at, failure, failed_at)
           VALUES (?, ?, ?, ?, CASE WHEN ? IS NULL THEN NULL ELSE 'now' END, ?, CASE WHEN ? IS NULL THEN NULL ELSE 'now' END)`,
        )
        .run(LOCAL.id, kind, key, value, value, failure, failure);
    expect(() => insert('weather', 'k', '{}', null)).toThrow(/CHECK/);
    expect(() => insert('stock', 'k', 'not json', null)).toThrow(/CHECK/);
    expect(() => insert('stock', 'k', null, 'lost')).toThrow(/CHECK/);
    expect(() => insert('stock', 'k', null, null)).toThrow(/CHECK/);
    expect(() => insert('stock', 'k'.repeat(41), '{}', null)).toThrow(/CHECK/);
  });
});
