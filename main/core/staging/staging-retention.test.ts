import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { StatusRecord } from '../../../shared/status.js';
import { verifyAuditChain } from '../audit/verify-chain.js';
import { applyRetention, RetentionSchedule, type RetentionRunResult } from '../store/retention-runner.js';
import { RETENTION_READS, RETENTION_SETTLED_STATUSES } from '../store/retention-repo.js';
import { openStore, STORE_FILE, type Store } from '../store/store.js';
import { LOCAL } from '../store/testing/store-fixtures.js';
import { applyStatusRecord } from '../tracking/apply-status.js';
import { SETTLED_STATUSES } from '../tracking/tracked-orders.js';
import { toStagedOrderView } from './staging-views.js';
import { settleOrders } from './testing/settle-orders.js';
import {
  stagingFixture,
  templateCsv,
  uniqueOrder,
  withField,
  type StagingFixture,
} from './testing/staging-fixtures.js';

/**
 * Retention of staging copies (migration 018, store/retention-repo.ts) over real SQLite files, with batches
 * imported and accepted through StagingService: only what the setting allows goes, an open order's copy and a
 * batch that can still be accepted stay, a second run changes nothing, a run killed mid-way is finished by the
 * next, and the audit chain still verifies.
 */

const DAY = 86_400_000;
const CHILD = fileURLToPath(new URL('../store/testing/retention-crash-child.ts', import.meta.url));

let fixture: StagingFixture | undefined;
let reopened: Store | undefined;
afterEach(() => {
  if (reopened?.isOpen) reopened.close();
  reopened = undefined;
  fixture?.close();
  fixture = undefined;
});

async function stage(f: StagingFixture, name: string, orders: ReturnType<typeof uniqueOrder>[]): Promise<number> {
  const outcome = await f.staging.importFile({ environmentId: LOCAL.id, path: f.file(name, templateCsv(orders)) });
  if (outcome.status !== 'staged') throw new Error(`expected a staged batch, got ${outcome.status}`);
  return outcome.batchId;
}

interface Built {
  f: StagingFixture;
  dataDir: string;
  /** Accepted: three orders (rejected, processed, still tracked), one queued, one invalid row left staged. */
  accepted: number;
  ids: { rejected: number; processed: number; tracked: number; queued: number };
  /** Imported and discarded, one of its orders edited first. */
  discarded: number;
  /** Imported, neither accepted nor discarded: still waiting for the admin. */
  waiting: number;
}

/** More orders in the discarded batch, or processed ones in the accepted batch: something sizeable to free. */
async function build(extra: { discarded?: number; processed?: number } = {}): Promise<Built> {
  const extraProcessed = extra.processed ?? 0;
  const f = stagingFixture();
  fixture = f;
  const accepted = await stage(f, 'accepted.csv', [
    ...Array.from({ length: 4 + extraProcessed }, () => uniqueOrder()),
    withField(uniqueOrder(), 'homeAddress.postCode', 'NOT A POSTCODE'),
  ]);
  // An edit before the accept: its cell outlives the compaction of the row it names.
  const firstAccepted = f.staging.getBatch(accepted, { limit: 1 }).orders[0]!;
  f.staging.editOrder(firstAccepted.id, { edits: [{ path: 'customer.firstName', value: 'Kim' }] });
  expect(f.staging.accept(accepted)).toMatchObject({ accepted: 4 + extraProcessed, staying: 1 });
  const extraPlan = Array.from({ length: extraProcessed }, () => 'processed' as const);
  const [rejected, processed, tracked] = settleOrders(f.store, [
    'rejected',
    'processed',
    'tracked',
    ...extraPlan,
    'queued',
  ]);
  const queued = f.store.orders.list({ environmentId: LOCAL.id, states: ['queued'], limit: 10 })[0]!.id;

  const discarded = await stage(
    f,
    'discarded.csv',
    Array.from({ length: 2 + (extra.discarded ?? 0) }, () => uniqueOrder()),
  );
  const first = f.staging.getBatch(discarded, { limit: 10 }).orders[0]!;
  f.staging.editOrder(first.id, { edits: [{ path: 'customer.firstName', value: 'Sam' }] });
  f.staging.discard(discarded);

  const waiting = await stage(f, 'waiting.csv', [uniqueOrder()]);
  f.store.close();
  return {
    f,
    dataDir: join(f.dataDir, 'data'),
    accepted,
    ids: { rejected: rejected!, processed: processed!, tracked: tracked!, queued },
    discarded,
    waiting,
  };
}

/** The store again, its clock `days` after now. */
function reopen(built: Built, days: number): Store {
  if (reopened?.isOpen) reopened.close();
  const at = new Date(Date.now() + days * DAY);
  reopened = openStore({ dataDir: built.dataDir, now: () => at });
  return reopened;
}

type Row = { id: number; batchId: number; state: string; compacted: string | null; size: number; records: number };

function stagedRows(store: Store): Row[] {
  return store.db
    .prepare(
      `SELECT id, batch_id AS batchId, state, compacted_at AS compacted,
         length(body) + length(problems) + length(provenance) + length(source) AS size,
         json_type(source, '$.records') IS NOT NULL AS records
       FROM staged_orders ORDER BY id`,
    )
    .all() as Row[];
}

const rowOf = (store: Store, orderId: number) =>
  stagedRows(store).find(
    (row) => row.id === store.db.prepare('SELECT id FROM staged_orders WHERE order_id = ?').pluck().get(orderId),
  );

const batchCompacted = (store: Store, batchId: number) =>
  store.db.prepare('SELECT compacted_at FROM import_batches WHERE id = ?').pluck().get(batchId) as string | null;

describe('retention of staging copies', () => {
  it('keeps everything before the retention time has passed', async () => {
    const built = await build();
    const store = reopen(built, 0);
    const before = stagedRows(store);
    const result = await applyRetention(store);
    expect(result).toMatchObject({ compacted: 0, deleted: 0, batchesFinished: 0 });
    expect(stagedRows(store)).toEqual(before);
    store.close();
    expect(await applyRetention(reopen(built, 89))).toMatchObject({ compacted: 0, deleted: 0 });
  });

  it("after 90 days drops finished orders' copies and a discarded batch's orders, nothing an open order or a waiting batch needs", async () => {
    const built = await build();
    const { ids } = built;
    const store = reopen(built, 91);
    const before = stagedRows(store);
    const trackedRow = rowOf(store, ids.tracked)!;
    const queuedRow = rowOf(store, ids.queued)!;
    const auditBefore = store.audit.lastSeq();
    const sourceBefore = store.orders.origin(ids.processed)!.staged!;
    const view = (orderId: number) =>
      toStagedOrderView(store, store.stagedOrders.get(rowOf(store, orderId)!.id)!, 'v1', LOCAL.codeLists);
    const viewBefore = view(ids.processed);
    expect(sourceBefore.sourceKept).toBe(true);

    const writesBefore = store.stagedOrders.writes;
    const result = await applyRetention(store, { rowsPerStep: 2 });
    expect(result).toMatchObject({
      compacted: 2,
      deleted: 2,
      batchesFinished: 1,
      cutoff: expect.any(String) as string,
    });
    // What is derived from staged orders (enrichment's warned orders) sees the rewrites and deletions.
    expect(store.stagedOrders.writes).toBe(writesBefore + 4);

    // The finished orders (rejected, processed): copies dropped, where they came from kept.
    for (const orderId of [ids.rejected, ids.processed]) {
      const row = rowOf(store, orderId)!;
      expect(row).toMatchObject({ compacted: expect.any(String) as string, records: 0 });
      expect(row.size).toBeLessThan(before.find((r) => r.id === row.id)!.size / 4);
      expect(store.orders.source(orderId)).toBeUndefined();
    }
    expect(store.orders.origin(ids.processed)!.staged).toEqual({ ...sourceBefore, sourceKept: false });
    // The batch's view still shows a compacted order's fields: the body it was sent with (its own shape).
    expect(view(ids.processed)).toEqual({ ...viewBefore, provenance: {} });
    // Open orders (still tracked, still queued) and the invalid order still staged: untouched.
    expect(rowOf(store, ids.tracked)).toEqual(trackedRow);
    expect(rowOf(store, ids.queued)).toEqual(queuedRow);
    expect(store.orders.source(ids.tracked)?.kind).toBe('csv');
    const leftStaged = stagedRows(store).filter((row) => row.batchId === built.accepted && row.state === 'staged');
    expect(leftStaged).toEqual(before.filter((row) => row.batchId === built.accepted && row.state === 'staged'));
    expect(batchCompacted(store, built.accepted)).toBeNull();
    // The discarded batch: its orders and their edit cells gone, the batch itself kept and marked done.
    expect(stagedRows(store).filter((row) => row.batchId === built.discarded)).toEqual([]);
    expect(store.db.prepare('SELECT staged_order_id FROM staged_order_edits').pluck().all()).toEqual([
      rowOf(store, ids.rejected)!.id,
    ]);
    expect(store.batches.get(built.discarded)).toMatchObject({ discardedAt: expect.any(String) as string });
    expect(batchCompacted(store, built.discarded)).toEqual(expect.any(String));
    // The waiting batch: untouched.
    expect(stagedRows(store).filter((row) => row.batchId === built.waiting)).toEqual(
      before.filter((row) => row.batchId === built.waiting),
    );
    // Orders, statuses and the audit log are not retention's: all still there, and the chain verifies.
    expect(store.orders.get(ids.processed)).toMatchObject({ remoteStatus: 'Prescription Processed' });
    expect(store.statusHistory.list(ids.processed)).toHaveLength(2);
    // The audit log: nothing rewritten, one entry appended for the run.
    expect(store.audit.lastSeq()).toBe(auditBefore + 1);
    expect(store.audit.search({ limit: 1 })[0]).toMatchObject({
      actor: 'system',
      action: 'retention.applied',
      details: { orderCount: 2, rowCount: 2 },
    });
    expect(verifyAuditChain(store)).toMatchObject({ ok: true });

    // Idempotent: a second run finds nothing to do and changes nothing.
    const after = stagedRows(store);
    expect(await applyRetention(store)).toMatchObject({ compacted: 0, deleted: 0, batchesFinished: 0 });
    expect(stagedRows(store)).toEqual(after);

    // Once the tracked order is processed, a later run takes its copy too (the queued one still waits); the batch
    // is done with only when its invalid order can no longer be accepted (never, here: it is not discarded).
    const later = reopen(built, 92);
    applyStatusRecord(later, ids.tracked, { orderStatus: 'Prescription Processed' } as StatusRecord, later.now());
    expect(await applyRetention(later)).toMatchObject({ compacted: 1 });
    expect(rowOf(later, ids.tracked)).toMatchObject({ compacted: expect.any(String) as string });
    expect(rowOf(later, ids.queued)).toMatchObject({ compacted: null });
    expect(batchCompacted(later, built.accepted)).toBeNull();
    expect(verifyAuditChain(later)).toMatchObject({ ok: true });
  });

  it('keeps staging copies for ever when the setting says so, and refuses a setting out of range', async () => {
    const built = await build();
    const store = reopen(built, 400);
    expect(store.retention.settings().stagedDays).toBe(90);
    store.retention.setStagedDays(null);
    const before = stagedRows(store);
    expect(await applyRetention(store)).toMatchObject({ cutoff: null, compacted: 0, deleted: 0 });
    expect(stagedRows(store)).toEqual(before);
    expect(() => store.retention.setStagedDays(0)).toThrow(RangeError);
    store.retention.setStagedDays(500);
    expect(await applyRetention(store)).toMatchObject({ compacted: 0, deleted: 0 });
    store.retention.setStagedDays(30);
    expect(store.audit.search({ action: 'retention.changed', limit: 3 }).map((entry) => entry.details)).toEqual([
      { retentionDays: 30, previousRetentionDays: 500 },
      { retentionDays: 500, outcome: 'was kept for ever' },
      { outcome: 'kept for ever', previousRetentionDays: 90 },
    ]);
    expect(await applyRetention(store)).toMatchObject({ compacted: 2, deleted: 2 });
  });

  it('a run killed mid-way (SIGKILL) leaves whole steps only, and the next run finishes the work', async () => {
    const built = await build();
    const at = new Date(Date.now() + 91 * DAY).toISOString();
    const child = spawnSync(process.execPath, ['--import', 'tsx', CHILD, built.dataDir, at, '2'], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(child.signal, child.stderr).toBe('SIGKILL');

    const store = openStore({ dataDir: built.dataDir, now: () => new Date(at) });
    reopened = store;
    const halfway = stagedRows(store);
    // Two steps of one staged order each were committed before the kill: some done, not all.
    const done = halfway.filter((row) => row.compacted !== null).length;
    const gone = 8 - halfway.length;
    expect(done + gone).toBe(2);
    expect(await applyRetention(store)).toMatchObject({ compacted: 2 - done, deleted: 2 - gone });
    expect(stagedRows(store).filter((row) => row.compacted !== null)).toHaveLength(2);
    expect(stagedRows(store).filter((row) => row.batchId === built.discarded)).toEqual([]);
    expect(verifyAuditChain(store)).toMatchObject({ ok: true });
  });

  it('a new store gives freed pages back to the file system in steps (incremental auto-vacuum)', async () => {
    const built = await build({ discarded: 400 });
    const store = reopen(built, 91);
    const fileSize = () => {
      store.db.pragma('wal_checkpoint(TRUNCATE)');
      return statSync(join(built.dataDir, STORE_FILE)).size;
    };
    const before = fileSize();
    const result = await applyRetention(store, { pagesPerStep: 8 });
    expect(result).toMatchObject({ deleted: 402, autoVacuum: 'incremental', freePages: 0 });
    expect(result.pagesReturned).toBeGreaterThan(8);
    expect(result.steps).toBeGreaterThan(result.pagesReturned / 8);
    expect(fileSize()).toBeLessThanOrEqual(before - result.pagesReturned * 4096);
    expect(verifyAuditChain(store)).toMatchObject({ ok: true });
  });

  it("gives the pages of compacted copies back, not only their rows' bytes", async () => {
    const built = await build({ processed: 300 });
    const store = reopen(built, 91);
    const pages = () =>
      store.db.prepare("SELECT count(*) FROM dbstat WHERE name = 'staged_orders'").pluck().get() as number;
    const before = pages();
    const result = await applyRetention(store);
    expect(result).toMatchObject({ compacted: 302, autoVacuum: 'incremental', freePages: 0 });
    expect(pages()).toBeLessThan(before / 4);
    expect(result.pagesReturned).toBeGreaterThan((before * 3) / 4 - 10);
    // Edit cells and every other column survive the rewrite: the staged orders still read as they did, less copies.
    const row = rowOf(store, built.ids.processed)!;
    expect(store.stagedOrders.get(row.id)).toMatchObject({ state: 'accepted', orderId: built.ids.processed, body: {} });
    expect(verifyAuditChain(store)).toMatchObject({ ok: true });
  });

  it('runs in the background on its schedule, and stop waits for the run under way', async () => {
    const built = await build();
    const store = reopen(built, 91);
    const runs: RetentionRunResult[] = [];
    let ran!: () => void;
    const first = new Promise<void>((resolve) => (ran = resolve));
    const schedule = new RetentionSchedule(store, {
      firstRunAfterMs: 0,
      everyMs: 3_600_000,
      onRun: (result) => {
        runs.push(result);
        ran();
      },
    });
    await first;
    await schedule.stop();
    expect(runs).toEqual([expect.objectContaining({ compacted: 2, deleted: 2, aborted: false })]);
    // Stopped before its first run: it never runs.
    const idle = new RetentionSchedule(store, { firstRunAfterMs: 10, onRun: (result) => runs.push(result) });
    await idle.stop();
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(runs).toHaveLength(1);
  });

  it('reads through indexes: no scan of staged orders, orders or batches, no sort', async () => {
    const built = await build();
    const store = reopen(built, 91);
    const cutoff = store.retention.cutoff()!;
    const plan = (sql: string, ...args: unknown[]) =>
      (store.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as Array<{ detail: string }>).map(
        (row) => row.detail,
      );
    const plans = {
      nextBatch: plan(RETENTION_READS.nextBatch, 0, cutoff),
      pick: plan(RETENTION_READS.pick, { batchId: built.accepted, cutoff, after: 0, until: 50 }),
      stale: plan(RETENTION_READS.stale, { batchId: built.discarded, after: 0, until: 50 }),
      last: plan(RETENTION_READS.last, built.accepted),
      kept: plan(RETENTION_READS.kept, { batchId: built.accepted, after: 0, until: 50 }),
      older: plan(RETENTION_READS.older, { batchId: built.accepted, after: 0, until: 50 }),
    };
    for (const [name, lines] of Object.entries(plans)) {
      const where = `${name}:\n${lines.join('\n')}`;
      expect(
        lines.filter((line) => /^SCAN (?!CONSTANT ROW)|TEMP B-TREE/.test(line)),
        where,
      ).toEqual([]);
    }
    expect(plans.nextBatch.join('\n')).toContain('import_batches_to_compact');
    expect(plans.pick.join('\n')).toMatch(
      /SEARCH s USING INDEX staged_orders_by_position \(batch_id=\? AND position>\? AND position<\?\)[\s\S]*SEARCH o USING INTEGER PRIMARY KEY/,
    );
    expect(plans.stale.join('\n')).toContain('staged_orders_by_position (batch_id=? AND position>? AND position<?)');
    expect(plans.older.join('\n')).toContain('staged_orders_by_position (batch_id=? AND position>? AND position<?)');
  });

  it("retention's settled statuses are the poller's", () => {
    expect([...RETENTION_SETTLED_STATUSES].sort()).toEqual([...SETTLED_STATUSES].sort());
  });
});
