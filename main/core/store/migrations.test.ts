import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { toWireJson } from '../../../shared/wire-json.js';
import { sampleCreateWithClinic } from '../../../test/support/orders.js';
import { AUDIT_ACTORS, type AuditInput } from '../model/audit-entry.js';
import { NOT_AN_ORDER_CODES } from '../model/imported-order.js';
import { verifyAuditChain } from '../audit/verify-chain.js';
import { LATEST_SCHEMA_VERSION, migrate, MIGRATIONS, SchemaTooNewError } from './migrations/index.js';
import { openDatabase } from './open-database.js';
import {
  AT_SERVICE_STATES,
  ATTEMPT_OPERATIONS,
  ATTEMPT_OUTCOMES,
  BATCH_KINDS,
  CANCELLATION_STATES,
  NOT_ACCEPTED_STATES,
  ORDER_CONTROLS,
  ORDER_ROUTES,
  ORDER_STATES,
  STAGED_ORDER_STATES,
} from './order-state.js';
import { AuditRepo } from './audit-repo.js';
import { openStore, STORE_FILE, type Store } from './store.js';
import { detailsId, STORED_ENTRY_COLUMNS } from './testing/audit-tamper.js';
import { appendLegacyEntry } from './testing/legacy-audit.js';
import { LOCAL, removeDir, tempDataDir } from './testing/store-fixtures.js';

const EIGHTEEN_DIGITS = '987654321098765432';

/** Writes a data directory exactly as the first release (schema 1) would have left it. */
function writeVersionOneFile(dataDir: string): { v1Body: string; hl7Body: string } {
  const db = openDatabase(join(dataDir, STORE_FILE));
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  expect(migrate(db, { target: 1 })).toEqual([1]);
  const v1Body = toWireJson(sampleCreateWithClinic({ clinicOrderId: 'OLD-0001', dmdCode: EIGHTEEN_DIGITS }));
  const hl7Body = 'MSH|^~\\&|CLINIC|A|RX|B|20250101||RDE^O11|1|P|2.5\rPID|1||X';
  db.prepare(
    `INSERT INTO environments (id, name, kind, api_base_url, issuer, client_id, grant_type, scopes,
       create_with_clinic_version, request_timeout_ms, code_lists, concurrency, rate_per_second, poll_interval_ms,
       created_at, updated_at)
     VALUES (?, ?, 'local-sandbox', ?, ?, '', 'client_credentials', ?, 'v1', 30000, ?, 3, 2.5, 90000, ?, ?)`,
  ).run(
    LOCAL.id,
    LOCAL.name,
    LOCAL.apiBaseUrl,
    LOCAL.issuer,
    JSON.stringify(LOCAL.scopes),
    JSON.stringify(LOCAL.codeLists),
    '2025-01-01T00:00:00.000Z',
    '2025-01-01T00:00:00.000Z',
  );
  db.prepare(
    `INSERT INTO import_batches (id, environment_id, source_file_name, kind, row_count, invalid_count, order_count, created_at)
     VALUES (7, ?, 'january.csv', 'csv', 2, 0, 2, '2025-01-01T00:00:00.000Z')`,
  ).run(LOCAL.id);
  const insertOrder = db.prepare(
    `INSERT INTO orders (id, batch_id, environment_id, clinic_code, clinic_order_id, route, request_body, state,
       pharmacy_order_id, remote_status, attempts, created_at, updated_at)
     VALUES (?, 7, ?, 'CLINIC-A', ?, ?, ?, ?, ?, ?, ?, '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z')`,
  );
  insertOrder.run(11, LOCAL.id, 'OLD-0001', 'v1', v1Body, 'created', 100_001, 'Waiting Clinical Check', 1);
  insertOrder.run(12, LOCAL.id, 'OLD-0002', 'hl7', hl7Body, 'queued', null, null, 0);
  db.prepare(
    `INSERT INTO attempts (order_id, operation, started_at, latency_ms, http_status, outcome, remote_id)
     VALUES (11, 'create', '2025-01-01T00:00:01.000Z', 120, 200, 'ok', '100001')`,
  ).run();
  db.prepare(
    `INSERT INTO status_history (order_id, status, observed_at) VALUES (11, 'Waiting Clinical Check', '2025-01-01T01:00:00.000Z')`,
  ).run();
  expect(db.pragma('user_version', { simple: true })).toBe(1);
  db.close();
  return { v1Body, hl7Body };
}

describe('migrations', () => {
  const dirs: string[] = [];
  const stores: Store[] = [];
  afterEach(() => {
    for (const store of stores.splice(0)) store.close();
    for (const dir of dirs.splice(0)) removeDir(dir);
  });

  it('are numbered 1, 2, 3… without gaps (but for numbers handed out and not landed yet)', () => {
    // Numbers are handed out ahead to work in progress; each may be missing only until it lands.
    const handedOut: number[] = [29, 30, 31];
    const versions = MIGRATIONS.map((migration) => migration.version);
    expect(versions).toEqual(
      Array.from({ length: LATEST_SCHEMA_VERSION }, (_, index) => index + 1).filter(
        (version) => !handedOut.includes(version) || versions.includes(version),
      ),
    );
  });

  it("spell out the same value lists as the code's constants", () => {
    const dataDir = tempDataDir();
    dirs.push(dataDir);
    const store = openStore({ dataDir });
    stores.push(store);
    const schema = (name: string) =>
      store.db.prepare<[string], { sql: string }>('SELECT sql FROM sqlite_master WHERE name = ?').get(name)?.sql ?? '';
    /** The quoted values of `<column> IN (…)` / `NOT IN (…)` in a CHECK or index, in order. */
    const listAfter = (sql: string, prefix: string) => {
      const start = sql.indexOf(`${prefix} (`);
      expect(start, prefix).toBeGreaterThanOrEqual(0);
      const list = sql.slice(start + prefix.length + 2, sql.indexOf(')', start));
      return [...list.matchAll(/'([^']*)'/g)].map((match) => match[1]);
    };
    const orders = schema('orders');
    expect(listAfter(orders, 'state IN')).toEqual([...ORDER_STATES]);
    expect(listAfter(orders, 'route IN')).toEqual([...ORDER_ROUTES]);
    expect(listAfter(orders, 'OR state NOT IN')).toEqual([...AT_SERVICE_STATES]);
    expect(listAfter(schema('orders_accepted_once'), 'state NOT IN')).toEqual([...NOT_ACCEPTED_STATES]);
    expect(listAfter(schema('import_batches'), 'kind IN')).toEqual([...BATCH_KINDS]);
    expect(listAfter(schema('import_batches'), 'route IN')).toEqual([...ORDER_ROUTES]);
    expect(listAfter(schema('staged_orders'), 'state IN')).toEqual([...STAGED_ORDER_STATES]);
    expect(listAfter(schema('staged_orders'), 'order_control IN')).toEqual([...ORDER_CONTROLS]);
    expect(listAfter(schema('attempts'), 'operation IN')).toEqual([...ATTEMPT_OPERATIONS]);
    expect(listAfter(schema('attempts'), 'outcome IN')).toEqual([...ATTEMPT_OUTCOMES]);
    expect(listAfter(schema('cancellations'), 'state IN')).toEqual([...CANCELLATION_STATES]);
    const notOrders = schema('staged_orders_not_orders');
    expect([...notOrders.matchAll(/"code":"([^"]+)"/g)].map((match) => match[1])).toEqual([...NOT_AN_ORDER_CODES]);
    // Migration 21 keeps the actor as its place in the list.
    expect(schema('audit_entries')).toContain(`actor IN (${AUDIT_ACTORS.map((_, index) => index).join(', ')})`);
  });

  it('carry a schema-1 file forward to the latest schema keeping every row', () => {
    const dataDir = tempDataDir();
    dirs.push(dataDir);
    const { v1Body, hl7Body } = writeVersionOneFile(dataDir);

    const store = openStore({ dataDir });
    stores.push(store);

    expect(store.schemaVersion).toBe(LATEST_SCHEMA_VERSION);
    expect(store.environments.get(LOCAL.id)).toMatchObject({
      name: LOCAL.name,
      codeLists: LOCAL.codeLists,
      concurrency: 3,
      ratePerSecond: 2.5,
      pollIntervalMs: 90_000,
    });
    expect(store.batches.get(7)).toMatchObject({ sourceFileName: 'january.csv', orderCount: 2 });
    const created = store.orders.get(11);
    expect(created).toMatchObject({
      state: 'created',
      pharmacyOrderId: 100_001,
      remoteStatus: 'Waiting Clinical Check',
      attempts: 1,
    });
    expect(created?.requestBody).toBe(v1Body);
    expect(store.orders.get(12)?.requestBody).toBe(hl7Body);
    expect(store.attempts.list(11)).toHaveLength(1);
    // Migration 23 keeps the status's text once and the time as milliseconds: read back as written.
    expect(store.statusHistory.list(11)).toEqual([
      {
        id: 1,
        orderId: 11,
        status: 'Waiting Clinical Check',
        dispatchDate: null,
        trackingId: null,
        observedAt: '2025-01-01T01:00:00.000Z',
      },
    ]);
    const seen = new Date('2025-02-03T04:05:06.789Z');
    store.statusHistory.append(11, { status: 'Prescription Dispatched', trackingId: 'TRK9', observedAt: seen });
    expect(store.statusHistory.list(11).map((entry) => [entry.status, entry.trackingId, entry.observedAt])).toEqual([
      ['Waiting Clinical Check', null, '2025-01-01T01:00:00.000Z'],
      ['Prescription Dispatched', 'TRK9', '2025-02-03T04:05:06.789Z'],
    ]);

    // Migration 3 back-filled searchable items from the JSON body, dm+d code digit for digit.
    expect(store.orders.items(11)).toEqual([
      expect.objectContaining({ dmdCode: EIGHTEEN_DIGITS, quantity: 1, medication: 'Paracetamol 500mg tablets' }),
    ]);
    expect(store.orders.list({ dmdCode: EIGHTEEN_DIGITS }).map((order) => order.id)).toEqual([11]);
    expect(store.orders.items(12)).toEqual([]);

    // Migration 2's audit log works on the migrated data.
    expect(verifyAuditChain(store)).toEqual({ ok: true, count: 0 });
    expect(store.orders.transition(12, ['queued'], 'held', {}, { actor: 'user', action: 'order.held' })).toBe(true);
    expect(verifyAuditChain(store)).toEqual({ ok: true, count: 1 });
  });

  it('carry an audit log across migration 10 byte for byte, still append-only and chained, with one index fewer', () => {
    const dataDir = tempDataDir();
    dirs.push(dataDir);
    const db = openDatabase(join(dataDir, STORE_FILE));
    db.pragma('journal_mode = WAL');
    expect(migrate(db, { target: 9 })).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const olderLog = {
      append: (input: AuditInput) => appendLegacyEntry(db, input, '2026-01-02T03:04:05.000Z'),
    };
    olderLog.append({ actor: 'user', action: 'signin', environmentId: LOCAL.id, details: { grant: 'device' } });
    olderLog.append({
      actor: 'submitter',
      action: 'order.created',
      environmentId: LOCAL.id,
      batchId: 7,
      orderId: 11,
      clinicCode: 'CLINIC-A',
      clinicOrderId: 'OLD-0001',
      details: { operation: 'create', outcome: 'ok', httpStatus: 200, latencyMs: 12, remoteId: '100001' },
    });
    olderLog.append({ actor: 'system', action: 'audit.exported', details: { format: 'csv', masked: true } });
    const before = db
      .prepare(
        `SELECT seq, at, actor, action, environment_id, batch_id, order_id, clinic_code, clinic_order_id, details,
           prev_hash, hash FROM audit_entries ORDER BY seq`,
      )
      .all();
    db.close();

    const store = openStore({ dataDir });
    stores.push(store);
    expect(store.schemaVersion).toBe(LATEST_SCHEMA_VERSION);
    // Read back as the entries were written, whatever form later migrations (21: compact) keep them in.
    expect(
      store.audit.page(0, 10).map((row) => ({
        seq: row.seq,
        at: row.at,
        actor: row.actor,
        action: row.action,
        environment_id: row.environmentId,
        batch_id: row.batchId,
        order_id: row.orderId,
        clinic_code: row.clinicCode,
        clinic_order_id: row.clinicOrderId,
        details: row.detailsJson,
        prev_hash: row.prevHash,
        hash: row.hash,
      })),
    ).toEqual(before);
    // Migration 12: the old rows keep their plain links, and say so.
    expect(store.db.prepare('SELECT DISTINCT link_scheme, key FROM audit_entries').all()).toEqual([
      { link_scheme: 1, key: null },
    ]);
    expect(verifyAuditChain(store)).toEqual({ ok: true, count: 3 });

    // The hash's UNIQUE index (written at a random place by every append) and the unused clinic index are gone.
    const indexes = store.db
      .prepare<[], { name: string; unique: number }>('SELECT name, "unique" FROM pragma_index_list(\'audit_entries\')')
      .all();
    expect(indexes.map((index) => index.name).sort()).toEqual(['audit_entries_by_action', 'audit_entries_by_order']);
    // The reads the log screen and an order's timeline make still go through an index, not the whole log.
    const plan = (sql: string) =>
      store.db
        .prepare<[], { detail: string }>(`EXPLAIN QUERY PLAN ${sql}`)
        .all()
        .map((row) => row.detail)
        .join('; ');
    expect(plan('SELECT * FROM audit_entries WHERE order_id = 11 ORDER BY seq')).toContain(
      'USING INDEX audit_entries_by_order',
    );
    expect(
      plan("SELECT * FROM audit_entries WHERE action = (SELECT id FROM audit_names WHERE name = 'order.created')"),
    ).toContain('USING INDEX audit_entries_by_action');

    // Still append-only: no UPDATE, no DELETE, no insert that is not the next link.
    expect(() => store.db.prepare('UPDATE audit_entries SET batch_id = 1 WHERE seq = 2').run()).toThrow(/append-only/);
    expect(() => store.db.prepare('DELETE FROM audit_entries WHERE seq = 3').run()).toThrow(/append-only/);
    const copyOfFirst = `SELECT seq, ${STORED_ENTRY_COLUMNS} FROM audit_entries WHERE seq = 1`;
    expect(() => store.db.exec(`INSERT OR REPLACE INTO audit_entries ${copyOfFirst}`)).toThrow(/end of the chain/);
    expect(() =>
      store.db.exec(
        `INSERT INTO audit_entries SELECT seq + 5, ${STORED_ENTRY_COLUMNS} FROM audit_entries WHERE seq = 1`,
      ),
    ).toThrow(/end of the chain/);

    // Appends continue the chain where the older release left it.
    const next = store.audit.append({ actor: 'user', action: 'outbox.paused', environmentId: LOCAL.id });
    expect(next).toMatchObject({ seq: 4, prevHash: (before[2] as { hash: string }).hash });
    expect(verifyAuditChain(store)).toEqual({ ok: true, count: 4 });

    // The CHECKs came along: details must be a JSON object.
    expect(() => detailsId(store.db, '[1]')).toThrow(/CHECK constraint failed/);
    // A copied hash is no longer refused by an index; verifying the chain is what catches it (it never matched).
    store.db.exec(
      `INSERT INTO audit_entries SELECT 5, at, actor, action, environment, batch_id, order_id, clinic_code,
        clinic_order_id, clinic_ids, ${detailsId(store.db, '{}')}, NULL, link, link_scheme, key FROM audit_entries
        WHERE seq = 1`,
    );
    expect(verifyAuditChain(store)).toEqual({
      ok: false,
      brokenAt: 5,
      problem: 'altered',
      reason: "hash does not match the entry's content",
    });
  });

  it('carry orders across migration 11 unvouched, so their bodies are still checked at send time', () => {
    const dataDir = tempDataDir();
    dirs.push(dataDir);
    const { v1Body } = writeVersionOneFile(dataDir);
    const db = openDatabase(join(dataDir, STORE_FILE));
    expect(migrate(db, { target: 10 })).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10]);
    // A queued v1 order as release 10 stored it: no vouch column yet.
    db.prepare(
      `INSERT INTO orders (id, batch_id, environment_id, clinic_code, clinic_order_id, route, request_body, state,
         created_at, updated_at)
       VALUES (13, 7, ?, 'CLINIC-A', 'OLD-0003', 'v1', ?, 'queued', '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z')`,
    ).run(LOCAL.id, v1Body.replace('OLD-0001', 'OLD-0003'));
    db.close();

    const store = openStore({ dataDir });
    stores.push(store);
    expect(store.schemaVersion).toBe(LATEST_SCHEMA_VERSION);
    const vouches = store.db.prepare('SELECT id, body_checked AS v FROM orders ORDER BY id').all();
    expect(vouches).toEqual([
      { id: 11, v: null },
      { id: 12, v: null },
      { id: 13, v: null },
    ]);
    expect(store.orders.claimForSending(LOCAL.id, 5).map((o) => [o.id, o.bodyChecked])).toEqual([
      [12, null],
      [13, null],
    ]);
    // Nothing but a check's version can be recorded.
    expect(() => store.db.prepare('UPDATE orders SET body_checked = 0 WHERE id = 13').run()).toThrow(
      /CHECK constraint failed/,
    );
  });

  it('carry created orders across migration 26 with no miss counted, and keep a run of misses whole', () => {
    const dataDir = tempDataDir();
    dirs.push(dataDir);
    writeVersionOneFile(dataDir);
    const db = openDatabase(join(dataDir, STORE_FILE));
    migrate(db, { target: 25 });
    db.close();

    const store = openStore({ dataDir });
    stores.push(store);
    expect(store.schemaVersion).toBe(LATEST_SCHEMA_VERSION);
    expect(store.orders.get(11)).toMatchObject({ state: 'created', pharmacyOrderId: 100_001, notFound: null });
    const at = new Date('2025-02-01T10:00:00.000Z');
    expect(store.orders.recordNotFound(11, at)).toEqual({ lookups: 1, since: at.toISOString(), flaggedAt: null });
    // A count without its first miss's time, or a flag without a run, cannot be stored.
    expect(() => store.db.prepare('UPDATE orders SET not_found_since = NULL WHERE id = 11').run()).toThrow(
      /CHECK constraint failed/,
    );
    expect(() =>
      store.db.prepare(`UPDATE orders SET not_found_flagged_at = '2025-02-01T11:00:00.000Z' WHERE id = 12`).run(),
    ).toThrow(/CHECK constraint failed/);
  });

  it('carry created orders across migration 27 with nothing listed differently, and keep a note whole', () => {
    const dataDir = tempDataDir();
    dirs.push(dataDir);
    writeVersionOneFile(dataDir);
    const db = openDatabase(join(dataDir, STORE_FILE));
    migrate(db, { target: 26 });
    db.close();

    const store = openStore({ dataDir });
    stores.push(store);
    expect(store.schemaVersion).toBe(LATEST_SCHEMA_VERSION);
    expect(store.orders.get(11)).toMatchObject({ state: 'created', notFound: null, listedDifferently: null });
    const listed = { clinicOrderId: 'old-0001', pharmacyOrderId: '100001' };
    const audit = { actor: 'system' as const, action: 'order.listed-differently', details: { operation: 'status' } };
    expect(store.orders.noteListedDifferently(11, listed, audit)).toBe(true);
    expect(store.orders.get(11)!.listedDifferently).toMatchObject(listed);
    // A note without its time, or a pharmacy id without the clinic order id it was listed under, cannot be stored.
    expect(() => store.db.prepare('UPDATE orders SET listed_differently_at = NULL WHERE id = 11').run()).toThrow(
      /CHECK constraint failed/,
    );
    expect(() => store.db.prepare(`UPDATE orders SET listed_pharmacy_order_id = '7' WHERE id = 12`).run()).toThrow(
      /CHECK constraint failed/,
    );
  });

  it('add the free-text index (migrations 17 and 21) at once, filled afterwards in batches, finding the same throughout', () => {
    const dataDir = tempDataDir();
    dirs.push(dataDir);
    const db = openDatabase(join(dataDir, STORE_FILE));
    migrate(db, { target: 16 });
    const at = '2026-01-02T03:04:05.000Z';
    appendLegacyEntry(db, { actor: 'user', action: 'outbox.paused', clinicOrderId: 'EARLY-0001' }, at);
    appendLegacyEntry(
      db,
      { actor: 'user', action: 'outbox.resumed', details: { errorMessage: 'Quote " and more' } },
      at,
    );
    expect(migrate(db)).toEqual(MIGRATIONS.map((migration) => migration.version).filter((version) => version > 16));
    const after = new AuditRepo(db, () => new Date(at));
    after.append({ actor: 'user', action: 'outbox.paused', clinicOrderId: 'LATE-0002' });
    const found = (text: string) => after.search({ search: text }).map((entry) => entry.seq);
    // The clinic code and order id and the details' values are searched; not JSON keys, not the action (the log
    // screen filters by it).
    const expectations: Array<[string, number[]]> = [
      ['early-000', [1]],
      ['quote " and', [2]],
      ['-000', [3, 1]],
      ['late-0002', [3]],
      ['errormessage', []],
      ['outbox.pa', []],
    ];
    // Nothing indexed by the migration itself: searches read the entries directly.
    expect(after.searchBacklog()).toBe(3);
    for (const [text, seqs] of expectations) expect(found(text), text).toEqual(seqs);
    expect(after.indexForSearch(2)).toBe(2);
    expect(after.searchBacklog()).toBe(1);
    for (const [text, seqs] of expectations) expect(found(text), text).toEqual(seqs);
    expect(after.indexForSearch(2)).toBe(1);
    expect(after.indexForSearch(2)).toBe(0);
    for (const [text, seqs] of expectations) expect(found(text), text).toEqual(seqs);
    // The index holds them: asked directly, without the log.
    expect(db.prepare(`SELECT rowid FROM audit_search WHERE audit_search MATCH '"ly-"' ORDER BY rowid`).all()).toEqual([
      { rowid: 1 },
    ]);
    db.close();
  });

  it('do nothing to a file that is already current', () => {
    const dataDir = tempDataDir();
    dirs.push(dataDir);
    openStore({ dataDir }).close();
    const db = openDatabase(join(dataDir, STORE_FILE));
    try {
      expect(migrate(db)).toEqual([]);
    } finally {
      db.close();
    }
  });

  it('refuse a file written by a newer release, leaving it untouched', () => {
    const dataDir = tempDataDir();
    dirs.push(dataDir);
    const db = openDatabase(join(dataDir, STORE_FILE));
    db.pragma(`user_version = ${LATEST_SCHEMA_VERSION + 1}`);
    db.close();

    expect(() => openStore({ dataDir })).toThrow(SchemaTooNewError);
    const after = openDatabase(join(dataDir, STORE_FILE));
    try {
      expect(after.pragma('user_version', { simple: true })).toBe(LATEST_SCHEMA_VERSION + 1);
    } finally {
      after.close();
    }
    // The refusal released the lock: the directory is not left locked.
    expect(() => openStore({ dataDir })).toThrow(SchemaTooNewError);
  });
});
