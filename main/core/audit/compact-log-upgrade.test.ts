import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LINK_KEYED_SHORT, toAuditEntry, type AuditInput, type AuditRow } from '../model/audit-entry.js';
import { openDatabase } from '../store/open-database.js';
import { enqueueOrders, openStore, STORE_FILE, type Store } from '../store/store.js';
import { appendLegacyEntry } from '../store/testing/legacy-audit.js';
import {
  LOCAL,
  removeDir,
  sampleOrder,
  storeAtVersion,
  storeWithBatch,
  tempDataDir,
} from '../store/testing/store-fixtures.js';
import { AuditKey } from './chain-key.js';
import { verifyAuditChain } from './verify-chain.js';

// Migration 21 (issue #16, "Size"): the log rewritten into its compact form. A store as releases up to migration 20
// left it (plain entries from before the key, keyed entries after), on a real SQLite file.
describe('the audit log carried into its compact form (migration 21)', () => {
  let dataDir: string;
  let store: Store | undefined;

  afterEach(() => {
    store?.close();
    removeDir(dataDir);
  });

  const statuses = ['Prescription Received', 'Prescription Dispatched', 'Prescription Processed'];
  function entry(index: number): AuditInput {
    if (index % 4 === 0) {
      return {
        actor: 'submitter',
        action: 'order.created',
        environmentId: LOCAL.id,
        batchId: 1 + Math.floor(index / 100),
        orderId: index,
        clinicCode: 'CLINIC-A',
        clinicOrderId: `CO-${String(index).padStart(8, '0')}`,
        details: { attempt: 1, httpStatus: 201, latencyMs: 30 + (index % 7), operation: 'create', outcome: 'ok' },
      };
    }
    return {
      actor: 'system',
      action: 'order.status-changed',
      environmentId: LOCAL.id,
      batchId: 1 + Math.floor(index / 100),
      orderId: index - (index % 4),
      clinicCode: 'CLINIC-A',
      clinicOrderId: `CO-${String(index - (index % 4)).padStart(8, '0')}`,
      details: {
        fromState: 'created',
        operation: 'status',
        remoteStatus: statuses[(index % 4) - 1]!,
        toState: 'created',
      },
    };
  }

  /** The bytes the log takes: its entries, their indexes and (once compact) the names and details texts. */
  function logBytes(db: ReturnType<typeof openDatabase>): number {
    return (
      db
        .prepare<[], { bytes: number }>(
          `SELECT sum(pgsize) AS bytes FROM dbstat WHERE name LIKE 'audit_entries%' OR name LIKE 'audit_names%'
             OR name LIKE 'audit_details%' OR name LIKE 'sqlite_autoindex_audit_%'`,
        )
        .get()?.bytes ?? 0
    );
  }

  it('reads every entry back as it was hashed, verifies the whole chain and goes on with shorter keyed links', () => {
    dataDir = tempDataDir('rx-audit-compact-');
    storeAtVersion(dataDir, 20);
    const key = AuditKey.generate();
    const db = openDatabase(join(dataDir, STORE_FILE));
    const written: AuditRow[] = [];
    // Before the key: plain links; one time not in the canonical form (no milliseconds), kept as text.
    written.push(
      appendLegacyEntry(db, { actor: 'user', action: 'signin', details: { grant: 'device' } }, '2025-01-01T08:00:00Z'),
    );
    written.push(appendLegacyEntry(db, entry(1), '2025-01-01T08:00:00.250Z'));
    for (let index = 2; index < 2_000; index += 1) {
      const at = new Date(Date.UTC(2025, 0, 1, 9) + index * 1_500).toISOString();
      written.push(appendLegacyEntry(db, entry(index), at, key));
    }
    const before = logBytes(db);
    db.close();

    store = openStore({ dataDir });
    expect(store.db.prepare('SELECT typeof(at) AS kind, count(*) AS n FROM audit_entries GROUP BY 1').all()).toEqual([
      { kind: 'integer', n: 1_999 },
      { kind: 'text', n: 1 },
    ]);
    expect(store.audit.page(0, 5_000)).toEqual(written);
    for (const { linkScheme, keyId, atMs, at } of store.audit.chainPage(0, 5_000)) {
      expect(linkScheme === 1 ? keyId : linkScheme).toBe(linkScheme === 1 ? null : 2);
      expect(atMs === null ? at : new Date(atMs).toISOString()).toBe(at);
    }
    expect(verifyAuditChain(store, { keys: [key] })).toEqual({ ok: true, count: 2_000 });
    // The space: under a third of what the same entries took before.
    expect(logBytes(store.db)).toBeLessThan(before / 3);

    store.audit.useKey(key, () => {});
    const next = store.audit.append(entry(2_000));
    expect(next).toMatchObject({ seq: 2_001, prevHash: written.at(-1)!.hash });
    expect(next.hash).toMatch(/^[0-9a-f]{32}$/);
    expect(store.db.prepare('SELECT link_scheme AS scheme FROM audit_entries WHERE seq = 2001').get()).toEqual({
      scheme: LINK_KEYED_SHORT,
    });
    expect(verifyAuditChain(store, { keys: [key] })).toEqual({ ok: true, count: 2_001 });
    // A program without this key cannot vouch for the keyed entries, old or compact.
    expect(verifyAuditChain(store, { keys: [AuditKey.generate()] })).toMatchObject({ ok: false, brokenAt: 3 });
  });
});

describe("an order's entries in the compact log", () => {
  it("read the order's clinic ids from the order, keep others as given, and fail verification if the order changes", () => {
    const { store, dataDir, batchId } = storeWithBatch();
    try {
      const [first, second] = enqueueOrders(store, batchId, [sampleOrder(), sampleOrder()], {
        actor: 'user',
        action: 'batch.accepted',
      });
      store.orders.transition(first!, ['queued'], 'held', {}, { actor: 'user', action: 'order.held' });
      const order = store.orders.get(first!)!;
      // Naming another clinic order id than the order's own: kept as given.
      store.audit.append({
        actor: 'user',
        action: 'order.note',
        orderId: second!,
        clinicCode: 'CLINIC-Z',
        clinicOrderId: 'ELSEWHERE-1',
      });
      const stored = store.db
        .prepare('SELECT order_id AS orderId, clinic_ids AS own, clinic_order_id AS kept FROM audit_entries')
        .all();
      expect(stored).toEqual([
        { orderId: null, own: 0, kept: null },
        { orderId: first, own: 1, kept: null },
        { orderId: second, own: 0, kept: 'ELSEWHERE-1' },
      ]);
      expect(store.audit.forOrder(first!)).toEqual([
        expect.objectContaining({ clinicCode: order.clinicCode, clinicOrderId: order.clinicOrderId }),
      ]);
      expect(store.audit.search({ search: order.clinicOrderId }).map((entry) => entry.orderId)).toEqual([first]);
      expect(verifyAuditChain(store)).toEqual({ ok: true, count: 3 });

      store.db.prepare("UPDATE orders SET clinic_order_id = 'REWRITTEN' WHERE id = ?").run(first);
      expect(verifyAuditChain(store)).toMatchObject({ ok: false, brokenAt: 2, problem: 'altered' });
    } finally {
      store.close();
      removeDir(dataDir);
    }
  });

  it("keeps each entry's own values (latency, the service's order id) with the entry, sharing the rest", () => {
    const { store, dataDir } = storeWithBatch();
    try {
      const written = Array.from({ length: 500 }, (_, index) =>
        store.audit.append({
          actor: 'submitter',
          action: 'order.created',
          details: { attempt: 1, httpStatus: 201, latencyMs: 20 + index, operation: 'create', remoteId: `R${index}` },
        }),
      );
      // One shared text for all of them; each entry keeps its latency and order id.
      expect(store.db.prepare('SELECT count(*) AS n FROM audit_details').get()).toEqual({ n: 1 });
      expect(store.audit.page(0, 1_000).map(toAuditEntry)).toEqual(written);
      expect(verifyAuditChain(store)).toEqual({ ok: true, count: 500 });
      expect(store.audit.search({ search: 'r417' }).map((entry) => entry.seq)).toEqual([418]);
      while (store.audit.indexForSearch(1_000) > 0);
      expect(store.audit.search({ search: 'r417' }).map((entry) => entry.seq)).toEqual([418]);
    } finally {
      store.close();
      removeDir(dataDir);
    }
  });
});
