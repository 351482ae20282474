import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { auditHash } from '../core/model/audit-entry.js';
import { AuditRepo } from '../core/store/audit-repo.js';
import { openDatabase } from '../core/store/open-database.js';
import { STORE_FILE } from '../core/store/store.js';
import { dropAuditTriggers, rewriteEntry } from '../core/store/testing/audit-tamper.js';
import { runCliCaptured } from './testing/run-cli-captured.js';

// `log verify` of the CLI (issue #12, finding 6): its key is in its 0600 secrets file, so a database file
// rewritten, cut short or put back from an older copy is reported with the first entry concerned (exit 1).
// Each of these tampered files passed `log verify` before. In-process runs on a real data directory.
describe('rx-batch log verify on a tampered database', () => {
  let dir: string;
  let dataDir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'rxbatch-cli-verify-'));
    dataDir = join(dir, 'data');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const cli = (...args: string[]) => runCliCaptured([...args, '--data-dir', dataDir]);

  /** Each export is audited: one entry per call. */
  async function entries(count: number) {
    for (let index = 0; index < count; index += 1) {
      expect(
        await cli('log', 'export', '--format', 'jsonl', '--out', join(dir, `export-${index}.jsonl`)),
      ).toMatchObject({ code: 0 });
    }
  }

  /** The attacker's side: the database file, without the triggers, and no key. */
  function tamper(edit: (db: ReturnType<typeof openDatabase>) => void) {
    const db = openDatabase(join(dataDir, STORE_FILE));
    dropAuditTriggers(db);
    edit(db);
    db.close();
  }

  it('says OK for an untouched log, with its progress on stderr', async () => {
    await entries(3);
    const verified = await cli('log', 'verify');
    expect(verified).toMatchObject({ code: 0 });
    expect(verified.stdout).toBe('Audit log OK: 3 entries, every link intact.\n');
    expect(verified.stderr).toContain('Checking the audit log: 3 of 3 entries (100%)');
  });

  it('stops on SIGINT/SIGTERM and says how far it got (exit 1: not checked to the end)', async () => {
    await entries(2);
    const stopped = new AbortController();
    stopped.abort();
    const { code, stdout } = await runCliCaptured(['log', 'verify', '--data-dir', dataDir], stopped.signal);
    expect(code).toBe(1);
    expect(stdout).toBe('Audit log check stopped after 0 entries: nothing was wrong up to there.\n');
  });

  it('reports an entry rewritten and re-chained with plain SHA-256 at that entry', async () => {
    await entries(4);
    tamper((db) => {
      let prevHash: string | undefined;
      for (const row of new AuditRepo(db, () => new Date()).page(0, 100)) {
        if (row.seq < 2) continue;
        const edited = {
          ...row,
          prevHash: prevHash ?? row.prevHash,
          detailsJson: row.seq === 2 ? '{"format":"csv","masked":true}' : row.detailsJson,
        };
        prevHash = auditHash(edited);
        rewriteEntry(db, row.seq, { detailsJson: edited.detailsJson, link: prevHash, plain: true });
      }
    });
    const verified = await cli('log', 'verify');
    expect(verified.code).toBe(1);
    expect(verified.stdout).toMatch(/^Audit log BROKEN at entry 2: entry 2 has a plain hash/);
  });

  it('reports entries cut off the end, naming the first one missing', async () => {
    await entries(5);
    tamper((db) => db.exec('DELETE FROM audit_entries WHERE seq > 3'));
    const verified = await cli('log', 'verify', '--json');
    expect(verified.code).toBe(1);
    expect(JSON.parse(verified.stdout)).toMatchObject({ ok: false, brokenAt: 4, problem: 'truncated' });
  });

  it('reports an older copy of the database put back', async () => {
    await entries(2);
    const file = join(dataDir, STORE_FILE);
    copyFileSync(file, join(dir, 'older.sqlite'));
    await entries(2);
    copyFileSync(join(dir, 'older.sqlite'), file);
    const verified = await cli('log', 'verify');
    expect(verified.code).toBe(1);
    expect(verified.stdout).toMatch(/^Audit log BROKEN at entry 3: entries after 2 are missing/);
  });
});
