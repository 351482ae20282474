import { copyFileSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MemorySecretStore, type SecretStore } from '../platform/secret-store.js';
import { migrate } from '../store/migrations/index.js';
import { openDatabase } from '../store/open-database.js';
import { openStore, STORE_FILE, type Store } from '../store/store.js';
import { appendLegacyEntry } from '../store/testing/legacy-audit.js';
import { LOCAL, manualClock, removeDir, tempDataDir } from '../store/testing/store-fixtures.js';
import { auditHash, LINK_KEYED_SHORT, type AuditRow } from '../model/audit-entry.js';
import { dropAuditTriggers, rewriteEntry } from '../store/testing/audit-tamper.js';
import { AuditChainGuard } from './chain-guard.js';
import { AUDIT_CHAIN_SECRET, AuditKeyError, plainFileSecrets, PLAIN_SECRETS_FILE } from './chain-key.js';
import { verifyAuditChain } from './verify-chain.js';

// Issue #12, finding 6: with plain SHA-256 links anyone holding the database file could drop the append-only
// triggers, rewrite an entry and re-chain it, cut entries off the end, or put an older copy of the file back, and
// `log verify` (verifyAuditChain without key or head, as before) still said OK. Links are now keyed with a key the
// host's secret store holds, and the chain's head is recorded there too. Real SQLite files in temp directories.

describe('keyed audit chain', () => {
  let dataDir: string;
  let store: Store | undefined;
  let guard: AuditChainGuard | undefined;
  let clock: ReturnType<typeof manualClock>;

  afterEach(async () => {
    await close();
    removeDir(dataDir);
  });

  async function open(secrets: SecretStore, options: { checkKeys?: SecretStore[] } = {}) {
    store = openStore({ dataDir, now: clock.now });
    guard = await AuditChainGuard.open(store, { secrets, headDelayMs: 60_000, ...options });
    return { store, guard };
  }

  async function close() {
    await guard?.close();
    store?.close();
    guard = undefined;
    store = undefined;
  }

  function append(count: number) {
    for (let index = 0; index < count; index += 1) {
      clock.advance(1_000);
      store!.audit.append({ actor: 'user', action: 'signin', environmentId: LOCAL.id, details: { grant: 'device' } });
    }
  }

  function rows(): AuditRow[] {
    return store!.audit.page(0, 1_000);
  }

  /** What an attacker with the file can do: take the append-only triggers away, then write what they like. */
  function dropTriggers() {
    dropAuditTriggers(store!.db);
  }

  /**
   * Rewrites entry `seq`'s details, then re-chains it and every later entry with plain SHA-256 (no key): marked
   * plain, or left marked keyed with the hash cut to a compact keyed link's length.
   */
  function rewriteAndRechain(seq: number, options: { markPlain: boolean }) {
    let prevHash: string | undefined;
    for (const row of rows()) {
      if (row.seq < seq) continue;
      const edited = {
        ...row,
        prevHash: prevHash ?? row.prevHash,
        detailsJson: row.seq === seq ? '{"grant":"client_credentials"}' : row.detailsJson,
      };
      const hash = auditHash(edited);
      const link = options.markPlain ? hash : hash.slice(0, 32);
      rewriteEntry(store!.db, row.seq, { detailsJson: edited.detailsJson, link, plain: options.markPlain });
      prevHash = link;
    }
  }

  function setUp() {
    clock = manualClock();
    dataDir = tempDataDir('rx-audit-key-');
  }

  it('keys every new link and verifies an untouched log, across a restart with the same secret store', async () => {
    setUp();
    const secrets = new MemorySecretStore();
    await open(secrets);
    append(5);
    expect(store!.db.prepare('SELECT DISTINCT link_scheme AS scheme FROM audit_entries').all()).toEqual([
      { scheme: LINK_KEYED_SHORT },
    ]);
    // The links are no longer what anyone could recompute.
    const first = rows()[0]!;
    expect(first.hash).not.toBe(auditHash(first));
    // The same log as the code before the key read it: it cannot check keyed links, and says so.
    expect(verifyAuditChain(store!)).toMatchObject({ ok: false, brokenAt: 1, problem: 'unknown-key' });
    expect(guard!.verify()).toEqual({ ok: true, count: 5 });

    await close();
    await open(secrets);
    expect(guard!.head).toEqual({ seq: 5, link: rows()[4]!.hash });
    append(2);
    expect(guard!.verify()).toEqual({ ok: true, count: 7 });
  });

  it('reports an entry rewritten and re-chained with plain SHA-256 at that entry', async () => {
    setUp();
    await open(new MemorySecretStore());
    append(6);
    await guard!.flush();
    // On the code before the key, this very rewrite passed: the plain chain is consistent again.
    rewriteAndRechain(3, { markPlain: true });
    expect(guard!.verify()).toMatchObject({ ok: false, brokenAt: 3, problem: 'unkeyed' });
  });

  it('reports a rewritten entry at that entry when the attacker leaves it marked as keyed', async () => {
    setUp();
    await open(new MemorySecretStore());
    append(6);
    rewriteAndRechain(4, { markPlain: false });
    expect(guard!.verify()).toMatchObject({ ok: false, brokenAt: 4, problem: 'altered' });
  });

  it('reports entries cut off the end at the first one missing', async () => {
    setUp();
    await open(new MemorySecretStore());
    append(8);
    await guard!.flush();
    dropTriggers();
    store!.db.exec('DELETE FROM audit_entries WHERE seq > 5');
    // What is left is a consistent chain: only the head recorded outside the database shows the cut.
    expect(verifyAuditChain(store!, { keys: [] })).toMatchObject({ problem: 'unknown-key' });
    const report = guard!.verify();
    expect(report).toMatchObject({ ok: false, brokenAt: 6, problem: 'truncated' });
    expect(report.ok === false && report.reason).toContain('entries after 5 are missing');
  });

  it('reports an older copy of the whole file put back, and keeps reporting it after new appends', async () => {
    setUp();
    const secrets = new MemorySecretStore();
    await open(secrets);
    append(4);
    await close();
    const file = join(dataDir, STORE_FILE);
    const copy = join(dataDir, 'older-copy.sqlite');
    expect(existsSync(`${file}-wal`)).toBe(false);
    copyFileSync(file, copy);

    await open(secrets);
    append(3);
    await close(); // records the head: entry 7
    copyFileSync(copy, file);

    await open(secrets);
    expect(guard!.head?.seq).toBe(7);
    expect(guard!.verify()).toMatchObject({ ok: false, brokenAt: 5, problem: 'truncated' });
    // Work goes on, but the head stays where it was recorded, so the rollback is not forgotten.
    append(4);
    await guard!.flush();
    expect(guard!.head?.seq).toBe(7);
    expect(guard!.verify()).toMatchObject({ ok: false, brokenAt: 7, problem: 'diverged' });
    await close();
    await open(secrets);
    expect(guard!.verify()).toMatchObject({ ok: false, brokenAt: 7, problem: 'diverged' });
  });

  it('does not call a head that lags behind the file (a crash before it was written) tampering', async () => {
    setUp();
    const secrets = new MemorySecretStore();
    await open(secrets);
    append(3);
    await guard!.flush();
    append(5); // not recorded yet: the process "dies" before the coalesced head write
    const head = guard!.head;
    store!.close();
    store = undefined;
    guard = undefined;
    await open(secrets);
    expect(head).toEqual(guard!.head);
    expect(guard!.head?.seq).toBe(3);
    expect(guard!.verify()).toEqual({ ok: true, count: 8 });
  });

  it('records the head once after a commit of many appends, not per append', async () => {
    setUp();
    store = openStore({ dataDir, now: clock.now });
    guard = await AuditChainGuard.open(store, { secrets: new MemorySecretStore(), headDelayMs: 5 });
    store.inTransaction(() => {
      append(50);
    });
    expect(guard.head).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(guard.head?.seq).toBe(50);
  });

  it('keeps a log from before migration 12 verifiable, and seals it with the first keyed entry', async () => {
    setUp();
    const db = openDatabase(join(dataDir, STORE_FILE));
    db.pragma('journal_mode = WAL');
    migrate(db, { target: 11 });
    const legacy = [1, 2, 3].map((minute) =>
      appendLegacyEntry(
        db,
        { actor: 'user', action: 'signin', environmentId: LOCAL.id, details: { grant: 'device' } },
        `2025-01-01T00:0${minute}:00.000Z`,
      ),
    );
    db.close();

    const secrets = new MemorySecretStore();
    await open(secrets);
    expect(guard!.verify()).toEqual({ ok: true, count: 3 });
    append(2);
    const [, , , firstKeyed] = rows();
    expect(firstKeyed).toMatchObject({ seq: 4, prevHash: legacy[2]!.hash });
    expect(guard!.verify()).toEqual({ ok: true, count: 5 });
    await guard!.flush();

    // A rewrite among the old entries, re-chained up to the keyed ones, breaks the first keyed link.
    const edited = { ...legacy[1]!, detailsJson: '{"grant":"client_credentials"}' };
    const third = { ...legacy[2]!, prevHash: auditHash(edited) };
    rewriteEntry(store!.db, 2, { detailsJson: edited.detailsJson, link: auditHash(edited) });
    rewriteEntry(store!.db, 3, { link: auditHash(third) });
    expect(verifyAuditChain(store!, { keys: [] })).toMatchObject({ brokenAt: 4 });
    expect(guard!.verify()).toMatchObject({ ok: false, brokenAt: 4, problem: 'altered' });
  });

  it('refuses to append a plain link after keyed ones', async () => {
    setUp();
    await open(new MemorySecretStore());
    append(1);
    await close();
    store = openStore({ dataDir, now: clock.now });
    expect(() => append(1)).toThrow(/keyed/);
    expect(store.audit.lastSeq()).toBe(1);
  });

  it('names the first entry keyed by a key it does not hold (another program, or a lost key)', async () => {
    setUp();
    await open(new MemorySecretStore());
    append(2);
    await close();
    await open(new MemorySecretStore()); // a new key: the old one is gone
    append(2);
    expect(guard!.verify()).toMatchObject({ ok: false, brokenAt: 1, problem: 'unknown-key' });
  });

  it("checks entries keyed by another program whose key it may read (the desktop app reads the CLI's)", async () => {
    setUp();
    const cli = plainFileSecrets(dataDir);
    await open(cli);
    append(2);
    await close();
    const desktop = new MemorySecretStore();
    await open(desktop, { checkKeys: [cli] });
    append(2);
    expect(guard!.verify()).toEqual({ ok: true, count: 4 });
    await close();
    // The CLI cannot read the desktop app's key: it says which entry it cannot check.
    await open(cli);
    expect(guard!.verify()).toMatchObject({ ok: false, brokenAt: 3, problem: 'unknown-key' });
  });

  it("keeps the key and head in the host's secret store, in one secret whose head cannot be edited", async () => {
    setUp();
    const cli = plainFileSecrets(dataDir);
    await open(cli);
    append(3);
    await close();
    const file = join(dataDir, PLAIN_SECRETS_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const saved = JSON.parse(readFileSync(file, 'utf8')) as { entries: Record<string, string> };
    const secret = JSON.parse(saved.entries[AUDIT_CHAIN_SECRET]!) as { head: { seq: number }; since: number };
    expect(secret).toMatchObject({ since: 1, head: { seq: 3 } });
    // Moving the head back (to hide a cut) without the key is refused outright.
    secret.head.seq = 1;
    saved.entries[AUDIT_CHAIN_SECRET] = JSON.stringify(secret);
    writeFileSync(file, JSON.stringify(saved));
    store = openStore({ dataDir, now: clock.now });
    await expect(AuditChainGuard.open(store, { secrets: cli })).rejects.toThrow(AuditKeyError);
  });
  describe('incremental verification (issue #16)', () => {
    it('checks only what follows the prefix found whole before, remembered in the keyed secret across a restart', async () => {
      setUp();
      const secrets = new MemorySecretStore();
      await open(secrets);
      append(5);
      expect(guard!.verified).toBeNull();
      expect(guard!.verify({ incremental: true })).toEqual({ ok: true, count: 5 });
      expect(guard!.verified).toEqual({ seq: 5, link: rows()[4]!.hash });
      await close();
      await open(secrets);
      expect(guard!.verified).toEqual({ seq: 5, link: rows()[4]!.hash });
      append(3);
      // Entries 1-5 are not read again: a rewrite inside the prefix that leaves entry 5 alone is not seen...
      rewriteEntry(store!.db, 2, { detailsJson: '{"grant":"client_credentials"}' });
      expect(guard!.verify({ incremental: true })).toEqual({ ok: true, count: 8 });
      // ...and the whole check finds it.
      expect(guard!.verify()).toMatchObject({ ok: false, brokenAt: 2, problem: 'altered' });
    });

    it("reports the prefix's last entry rewritten, and entries appended after it altered", async () => {
      setUp();
      await open(new MemorySecretStore());
      append(4);
      expect(guard!.verify()).toEqual({ ok: true, count: 4 });
      append(3);
      rewriteAndRechain(6, { markPlain: false });
      expect(guard!.verify({ incremental: true })).toMatchObject({ ok: false, brokenAt: 6, problem: 'altered' });
      // The prefix's last entry given another link (its content and the chain after it are another matter).
      rewriteEntry(store!.db, 4, { link: 'b'.repeat(32) });
      expect(guard!.verify({ incremental: true })).toMatchObject({ ok: false, brokenAt: 4, problem: 'diverged' });
    });

    it('refuses a verified prefix edited in the secret without the key, and reads a secret from before it', async () => {
      setUp();
      const cli = plainFileSecrets(dataDir);
      await open(cli);
      append(3);
      guard!.verify();
      await close();
      const file = join(dataDir, PLAIN_SECRETS_FILE);
      const saved = JSON.parse(readFileSync(file, 'utf8')) as { entries: Record<string, string> };
      const secret = JSON.parse(saved.entries[AUDIT_CHAIN_SECRET]!) as Record<string, unknown>;
      expect(secret).toMatchObject({ version: 2, verified: { seq: 3 } });
      saved.entries[AUDIT_CHAIN_SECRET] = JSON.stringify({ ...secret, verified: { seq: 2, link: 'a'.repeat(64) } });
      writeFileSync(file, JSON.stringify(saved));
      store = openStore({ dataDir, now: clock.now });
      await expect(AuditChainGuard.open(store, { secrets: cli })).rejects.toThrow(AuditKeyError);
      store.close();
      store = undefined;
    });
  });
});
