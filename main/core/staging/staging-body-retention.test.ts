import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { StatusRecord } from '../../../shared/status.js';
import { verifyAuditChain } from '../audit/verify-chain.js';
import { openDatabase } from '../store/open-database.js';
import { PackedBodyError } from '../store/request-body-codec.js';
import { BODY_PACKING_READS } from '../store/retention-bodies.js';
import { FINISHED_ORDER_WHERE } from '../store/retention-repo.js';
import { applyRetention } from '../store/retention-runner.js';
import { openStore, STORE_FILE, type Store } from '../store/store.js';
import { LOCAL } from '../store/testing/store-fixtures.js';
import { applyStatusRecord } from '../tracking/apply-status.js';
import { toOrderSummary } from '../views.js';
import { templateCsv as exportTemplateCsv } from './batch-exports.js';
import { toStagedOrderView } from './staging-views.js';
import { settleOrders, type SettleOutcome } from './testing/settle-orders.js';
import { stagingFixture, templateCsv, uniqueOrder, type StagingFixture } from './testing/staging-fixtures.js';

/**
 * Retention's packing of finished orders' request bodies (migration 020, store/retention-bodies.ts) over real
 * SQLite files, orders imported and accepted through StagingService: a finished order's body is stored packed and
 * every reader gets the exact text back, an open order's body is untouched, the space comes back, the audit chain
 * still verifies, and a damaged packed body is refused by name.
 */

const DAY = 86_400_000;

let fixture: StagingFixture | undefined;
let reopened: Store | undefined;
afterEach(() => {
  if (reopened?.isOpen) reopened.close();
  reopened = undefined;
  fixture?.close();
  fixture = undefined;
});

interface Built {
  dataDir: string;
  batchId: number;
  ids: Record<SettleOutcome, number>;
  /** Every order of the batch, in id order. */
  all: number[];
}

/** One accepted batch: a rejected, a processed, a still tracked and a queued order, and `processed` more. */
async function build(processed = 0): Promise<Built> {
  const f = stagingFixture();
  fixture = f;
  const orders = Array.from({ length: 4 + processed }, () => uniqueOrder());
  const outcome = await f.staging.importFile({ environmentId: LOCAL.id, path: f.file('o.csv', templateCsv(orders)) });
  if (outcome.status !== 'staged') throw new Error(`expected a staged batch, got ${outcome.status}`);
  f.staging.accept(outcome.batchId);
  const more = Array.from({ length: processed }, () => 'processed' as const);
  const [rejected, done, tracked] = settleOrders(f.store, ['rejected', 'processed', 'tracked', ...more, 'queued']);
  const all = f.store.orders.list({ environmentId: LOCAL.id, limit: 1000 }).map((order) => order.id);
  const queued = f.store.orders.list({ environmentId: LOCAL.id, states: ['queued'], limit: 10 })[0]!.id;
  f.store.close();
  return {
    dataDir: join(f.dataDir, 'data'),
    batchId: outcome.batchId,
    ids: { rejected: rejected!, processed: done!, tracked: tracked!, queued },
    all,
  };
}

function reopen(built: Built, days: number): Store {
  if (reopened?.isOpen) reopened.close();
  const at = new Date(Date.now() + days * DAY);
  reopened = openStore({ dataDir: built.dataDir, now: () => at });
  return reopened;
}

type RawBody = { body: string; packed: Buffer | null };
const rawBody = (store: Store, id: number) =>
  store.db
    .prepare<[number], RawBody>('SELECT request_body AS body, request_body_packed AS packed FROM orders WHERE id = ?')
    .get(id)!;

/** What the batch's view shows as the request an accepted order was sent with. */
const shownRequest = (store: Store, orderId: number) => {
  const stagedId = store.db.prepare('SELECT id FROM staged_orders WHERE order_id = ?').pluck().get(orderId) as number;
  return toStagedOrderView(store, store.stagedOrders.get(stagedId)!, 'v1', LOCAL.codeLists).request;
};

describe("retention packs finished orders' request bodies", () => {
  it('packs a finished order past retention; every reader gets the exact text; open orders untouched', async () => {
    const built = await build();
    const { ids } = built;
    const early = reopen(built, 89);
    const texts = new Map(built.all.map((id) => [id, rawBody(early, id).body]));
    const records = new Map(built.all.map((id) => [id, early.orders.get(id)!]));
    const items = early.orders.items(ids.processed);
    const exported = [...exportTemplateCsv(early, built.batchId)].join('');
    expect(await applyRetention(early)).toMatchObject({ bodiesPacked: 0 });
    expect(built.all.map((id) => rawBody(early, id).packed)).toEqual(built.all.map(() => null));

    const store = reopen(built, 91);
    const counts = store.orders.countByState(LOCAL.id);
    const auditBefore = store.audit.lastSeq();
    const result = await applyRetention(store, { rowsPerStep: 2 });
    expect(result).toMatchObject({ bodiesPacked: 2, compacted: 2 });

    for (const id of [ids.rejected, ids.processed]) {
      const raw = rawBody(store, id);
      expect(raw.body).toBe('*');
      expect(raw.packed!.length).toBeLessThan(Buffer.byteLength(texts.get(id)!) / 3);
      // The record, the batch's view of the request sent, a list page and a summary: as before, byte for byte.
      expect(store.orders.get(id)).toEqual(records.get(id));
      expect(store.orders.get(id)!.requestBody).toBe(texts.get(id));
      expect(shownRequest(store, id)).toBe(texts.get(id));
      expect(toOrderSummary(store.orders.get(id)!)).toEqual(toOrderSummary(records.get(id)!));
    }
    expect(store.orders.list({ environmentId: LOCAL.id, limit: 100 })).toEqual(built.all.map((id) => records.get(id)));
    // The batch's template export: the same CSV, the compacted orders written from the bodies they were sent with.
    expect([...exportTemplateCsv(store, built.batchId)].join('')).toBe(exported);
    expect(exported).toContain(records.get(ids.processed)!.clinicOrderId);
    // Open orders (still tracked, still queued): their text as the submitter reads it, untouched.
    for (const id of [ids.tracked, ids.queued])
      expect(rawBody(store, id)).toEqual({ body: texts.get(id), packed: null });
    // Nothing else moved: counts, the rows that name the orders, the audit chain (nothing appended for packing).
    expect(store.orders.countByState(LOCAL.id)).toEqual(counts);
    expect(store.db.pragma('foreign_key_check')).toEqual([]);
    expect(store.db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(store.statusHistory.list(ids.processed)).toHaveLength(2);
    expect(store.orders.items(ids.processed)).toEqual(items);
    expect(store.audit.lastSeq()).toBe(auditBefore + 1);
    expect(store.audit.search({ limit: 1 })[0]).toMatchObject({ action: 'retention.applied' });
    expect(verifyAuditChain(store)).toMatchObject({ ok: true });

    // A restart reads the same text; a second run packs nothing more.
    const later = reopen(built, 92);
    for (const id of built.all) expect(later.orders.get(id)!.requestBody).toBe(texts.get(id));
    expect(await applyRetention(later)).toMatchObject({ bodiesPacked: 0 });

    // Once the tracked order is processed, a later run packs it too; the queued one still waits.
    applyStatusRecord(later, ids.tracked, { orderStatus: 'Prescription Processed' } as StatusRecord, later.now());
    expect(await applyRetention(later)).toMatchObject({ bodiesPacked: 1 });
    expect(rawBody(later, ids.tracked).body).toBe('*');
    expect(later.orders.get(ids.tracked)!.requestBody).toBe(texts.get(ids.tracked));
    expect(rawBody(later, ids.queued)).toEqual({ body: texts.get(ids.queued), packed: null });
    expect(verifyAuditChain(later)).toMatchObject({ ok: true });
  });

  it('sends a rejected order retried after its body was packed with exactly the text it was first sent with', async () => {
    const built = await build();
    const store = reopen(built, 91);
    const text = rawBody(store, built.ids.rejected).body;
    await applyRetention(store);
    expect(rawBody(store, built.ids.rejected).body).toBe('*');
    // What the outbox's "retry now" does for a rejected order, then the submitter's claim.
    const retry = { nextAttemptAt: null, lastError: null };
    const action = { actor: 'user' as const, action: 'order.retry-now' as const };
    expect(store.orders.transition(built.ids.rejected, ['rejected'], 'queued', retry, action)).toBe(true);
    const claimed = store.orders.claimForSending(LOCAL.id, 10);
    expect(claimed.find((order) => order.id === built.ids.rejected)?.requestBody).toBe(text);
  });

  it('gives the pages of packed rows back, not only their bytes', async () => {
    const built = await build(300);
    const store = reopen(built, 91);
    const pages = () => store.db.prepare("SELECT count(*) FROM dbstat WHERE name = 'orders'").pluck().get() as number;
    const before = pages();
    const result = await applyRetention(store);
    expect(result).toMatchObject({ bodiesPacked: 302, autoVacuum: 'incremental', freePages: 0 });
    expect(pages()).toBeLessThan(before / 2);
    expect(verifyAuditChain(store)).toMatchObject({ ok: true });
  });

  it('refuses a damaged packed body by name, and a packed body beside text', async () => {
    const built = await build();
    const store = reopen(built, 91);
    await applyRetention(store);
    store.close();
    // Damage one byte of the packed body in the file, as a disk or a hand edit would.
    const db = openDatabase(join(built.dataDir, STORE_FILE));
    const id = built.ids.processed;
    const packed = db.prepare('SELECT request_body_packed FROM orders WHERE id = ?').pluck().get(id) as Buffer;
    packed[packed.length - 4] = packed[packed.length - 4]! ^ 0x01;
    db.prepare('UPDATE orders SET request_body_packed = ? WHERE id = ?').run(packed, id);
    // The schema keeps the two forms apart: a packed body only beside the mark.
    expect(() =>
      db.prepare('UPDATE orders SET request_body_packed = ? WHERE id = ?').run(packed, built.ids.queued),
    ).toThrow(/CHECK constraint failed/);
    db.close();

    const damaged = reopen(built, 92);
    expect(() => damaged.orders.get(id)).toThrow(PackedBodyError);
    expect(() => damaged.orders.get(id)).toThrow(new RegExp(`request body of order ${id} .*cannot be read`));
    expect(() => shownRequest(damaged, id)).toThrow(PackedBodyError);
    // The other packed order still reads.
    expect(damaged.orders.get(built.ids.rejected)!.requestBody).toMatch(/^\{"customer":/);
  });

  it('finds what to pack through orders_bodies_to_pack: no scan of orders', async () => {
    const built = await build();
    const store = reopen(built, 91);
    const lines = (
      store.db
        .prepare(`EXPLAIN QUERY PLAN ${BODY_PACKING_READS.candidates(FINISHED_ORDER_WHERE)}`)
        .all({ after: 0, cutoff: store.retention.cutoff()!, limit: 50 }) as Array<{ detail: string }>
    ).map((row) => row.detail);
    expect(lines.join('\n')).toMatch(/SEARCH o USING (COVERING )?INDEX orders_bodies_to_pack \(id>\?\)/);
    expect(lines.filter((line) => /^SCAN|TEMP B-TREE/.test(line))).toEqual([]);
  });
});
