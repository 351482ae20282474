import { afterEach, describe, expect, it } from 'vitest';
import type { Store } from '../store/store.js';
import { enqueueOrders } from '../store/store.js';
import { LOCAL, manualClock, removeDir, sampleOrder, storeWithBatch } from '../store/testing/store-fixtures.js';
import { AuditDetailsError, canonicalDetailsJson, checkAuditDetails } from '../model/audit-details.js';
import { auditHash, GENESIS_HASH } from '../model/audit-entry.js';
import { dropAuditTriggers, rewriteEntry, STORED_ENTRY_COLUMNS } from '../store/testing/audit-tamper.js';
import { verifyAuditChain } from './verify-chain.js';

describe('audit log', () => {
  let store: Store;
  let dataDir: string;
  let batchId: number;
  let clock: ReturnType<typeof manualClock>;

  function setUp(entries = 0) {
    clock = manualClock();
    ({ store, dataDir, batchId } = storeWithBatch(clock.now));
    for (let index = 0; index < entries; index += 1) {
      clock.advance(1_000);
      store.audit.append({ actor: 'user', action: 'signin', environmentId: LOCAL.id, details: { grant: 'device' } });
    }
  }

  afterEach(() => {
    store.close();
    removeDir(dataDir);
  });

  it('chains each entry to the one before with a SHA-256 over its content', () => {
    setUp();
    const first = store.audit.append({ actor: 'user', action: 'signin', environmentId: LOCAL.id });
    clock.advance(5);
    const second = store.audit.append({
      actor: 'system',
      action: 'audit.exported',
      details: { format: 'csv', masked: true },
    });

    expect(first).toMatchObject({ seq: 1, prevHash: GENESIS_HASH, at: '2025-03-03T09:00:00.000Z', details: {} });
    expect(second).toMatchObject({ seq: 2, prevHash: first.hash, details: { format: 'csv', masked: true } });
    expect(second.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(second.hash).toBe(
      auditHash({
        seq: 2,
        at: '2025-03-03T09:00:00.005Z',
        actor: 'system',
        action: 'audit.exported',
        environmentId: null,
        batchId: null,
        orderId: null,
        clinicCode: null,
        clinicOrderId: null,
        detailsJson: '{"format":"csv","masked":true}',
        prevHash: first.hash,
      }),
    );
    expect(verifyAuditChain(store)).toEqual({ ok: true, count: 2 });
  });

  it('hashes details the same whatever order their keys came in', () => {
    expect(canonicalDetailsJson({ outcome: 'ok', httpStatus: 200, operation: 'create' })).toBe(
      canonicalDetailsJson({ operation: 'create', httpStatus: 200, outcome: 'ok' }),
    );
  });

  it('refuses UPDATE and DELETE of entries in SQLite itself', () => {
    setUp(3);
    expect(() => store.db.prepare('UPDATE audit_entries SET batch_id = 9 WHERE seq = 2').run()).toThrow(/append-only/);
    expect(() => store.db.prepare('DELETE FROM audit_entries WHERE seq = 3').run()).toThrow(/append-only/);
    // An entry's action and details texts are kept once for all the entries using them: those are append-only too.
    expect(() => store.db.prepare("UPDATE audit_names SET name = 'signout'").run()).toThrow(/append-only/);
    expect(() => store.db.prepare('DELETE FROM audit_details').run()).toThrow(/append-only/);
    expect(verifyAuditChain(store)).toEqual({ ok: true, count: 3 });
  });

  it('refuses an insert that does not extend the chain, including INSERT OR REPLACE over an old entry', () => {
    setUp(2);
    const copy = `SELECT seq, ${STORED_ENTRY_COLUMNS} FROM audit_entries WHERE seq = 1`;
    expect(() => store.db.exec(`INSERT OR REPLACE INTO audit_entries ${copy}`)).toThrow(/end of the chain/);
    expect(() =>
      store.db.exec(
        `INSERT INTO audit_entries SELECT seq + 5, ${STORED_ENTRY_COLUMNS} FROM audit_entries WHERE seq = 1`,
      ),
    ).toThrow(/end of the chain/);
    expect(store.audit.page(0, 10).map((row) => row.action)).toEqual(['signin', 'signin']);
    // A copy at the next seq is an append SQLite lets through; its link (entry 1's) does not cover entry 2's.
    store.db.exec(`INSERT INTO audit_entries SELECT 3, ${STORED_ENTRY_COLUMNS} FROM audit_entries WHERE seq = 1`);
    expect(verifyAuditChain(store)).toMatchObject({ ok: false, brokenAt: 3, problem: 'altered' });
  });

  it('names the first entry whose content was edited', () => {
    setUp(5);
    rewriteEntry(store.db, 3, { detailsJson: '{"grant":"client_credentials"}' });
    rewriteEntry(store.db, 4, { action: 'signout' });
    expect(verifyAuditChain(store)).toEqual({
      ok: false,
      brokenAt: 3,
      problem: 'altered',
      reason: "hash does not match the entry's content",
    });
  });

  it('names the entry after a deleted one', () => {
    setUp(5);
    dropAuditTriggers(store.db);
    store.db.exec('DELETE FROM audit_entries WHERE seq = 2');
    const report = verifyAuditChain(store);
    expect(report).toMatchObject({ ok: false, brokenAt: 3, problem: 'missing' });
    expect(report.ok === false && report.reason).toBe('entry 3 follows 1: entries are missing');
  });

  it('names an entry whose hash was recomputed after an edit, at the next link (which covers the old one)', () => {
    setUp(4);
    const row = store.audit.page(1, 1)[0]!;
    const forged = { ...row, detailsJson: '{"grant":"client_credentials"}' };
    rewriteEntry(store.db, row.seq, { detailsJson: forged.detailsJson, link: auditHash(forged) });
    expect(verifyAuditChain(store)).toEqual({
      ok: false,
      brokenAt: 3,
      problem: 'altered',
      reason: "hash does not match the entry's content",
    });
  });

  it('fills order entries with identifiers only and verifies across a busy log', () => {
    setUp();
    const ids = enqueueOrders(store, batchId, [sampleOrder(), sampleOrder()], {
      actor: 'user',
      action: 'batch.accepted',
    });
    for (const id of ids) {
      store.orders.transition(id, ['queued'], 'held', {}, { actor: 'user', action: 'order.held' });
    }
    const entries = store.audit.page(0, 10);
    expect(entries).toHaveLength(3);
    const text = JSON.stringify(entries);
    expect(text).not.toContain('Example'); // the sample patient's surname
    expect(text).not.toContain('1980-01-15');
    expect(verifyAuditChain(store)).toEqual({ ok: true, count: 3 });
  });

  describe('details allow-list', () => {
    it('refuses keys outside the list, naming the key but never the value', () => {
      let failure: unknown;
      try {
        checkAuditDetails({ operation: 'create', accessToken: 'secret-value-123', surname: 'Smith' });
      } catch (error) {
        failure = error;
      }
      expect(failure).toBeInstanceOf(AuditDetailsError);
      expect((failure as Error).message).toContain('"accessToken", "surname"');
      expect((failure as Error).message).not.toContain('secret-value-123');
      expect((failure as Error).message).not.toContain('Smith');
    });

    it('refuses nested values and wrong types', () => {
      expect(() => checkAuditDetails({ errorMessage: { body: 'x' } })).toThrow(AuditDetailsError);
      expect(() => checkAuditDetails({ httpStatus: '200' })).toThrow(AuditDetailsError);
      expect(() => checkAuditDetails(['operation'])).toThrow(AuditDetailsError);
    });

    it('refuses an entry with bad details, a made-up actor or a malformed action without writing it', () => {
      setUp(1);
      expect(() =>
        store.audit.append({ actor: 'user', action: 'signin', details: { dateOfBirth: '1980-01-15' } as never }),
      ).toThrow(/dateOfBirth/);
      expect(() => store.audit.append({ actor: 'admin' as never, action: 'signin' })).toThrow(/actor/);
      expect(() => store.audit.append({ actor: 'user', action: 'Sign In!' })).toThrow(/action/);
      expect(store.audit.lastSeq()).toBe(1);
      expect(verifyAuditChain(store)).toEqual({ ok: true, count: 1 });
    });
  });
});
