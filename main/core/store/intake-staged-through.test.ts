import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { IntakeRepo } from './intake-repo.js';
import { migrate } from './migrations/index.js';
import { openDatabase } from './open-database.js';
import { openStore, STORE_FILE, type Store } from './store.js';
import { LOCAL, removeDir, tempDataDir } from './testing/store-fixtures.js';

/**
 * Migration 024: the intake finds messages answered and never staged after a mark, not through an index. A store
 * upgraded with such messages (and rows an earlier version left `received`) must still have them found at the
 * next start, however they lie among staged and refused ones; and the mark must never pass one still waiting.
 */

const AT = '2026-11-20T10:00:00.000Z';
type Row = { controlId: string; outcome: 'received' | 'AA' | 'AE' | 'AR'; batchId: number | null };

/** A store file at schema 23 (as the release before 024 left it) holding these intake rows, ids in this order. */
function writeSchema23File(dataDir: string, rows: Row[]): void {
  const db = openDatabase(join(dataDir, STORE_FILE));
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('foreign_keys = ON');
    migrate(db, { target: 23 });
    const insert = db.prepare(
      `INSERT INTO intake_messages (environment_id, channel, sender, control_id, received_at, peer, raw, outcome, ack,
         batch_id, answered_at)
       VALUES (?, 'mllp', 'EPR-7^CLINIC-H', ?, ?, '127.0.0.1:5000', ?, ?, ?, ?, ?)`,
    );
    for (const row of rows) {
      const answered = row.outcome !== 'received';
      insert.run(
        LOCAL.id,
        row.controlId,
        AT,
        Buffer.from(`MSH|^~\\&|EPR-7|CLINIC-H|||||RDE^O11|${row.controlId}|P|2.5`),
        row.outcome,
        answered ? 'MSH|ACK' : null,
        row.batchId,
        answered ? AT : null,
      );
    }
  } finally {
    db.close();
  }
}

const controlIds = (records: Array<{ controlId: string }>) => records.map((record) => record.controlId);

describe('migration 024 (intake staged-through mark)', () => {
  const dirs: string[] = [];
  const stores: Store[] = [];
  afterEach(() => {
    for (const store of stores.splice(0)) store.close();
    for (const dir of dirs.splice(0)) removeDir(dir);
  });

  function upgraded(rows: Row[]): { store: Store; repo: IntakeRepo } {
    const dataDir = tempDataDir();
    dirs.push(dataDir);
    writeSchema23File(dataDir, rows);
    const store = openStore({ dataDir });
    stores.push(store);
    return { store, repo: new IntakeRepo(store.db, store.now) };
  }

  it('keeps every message a store held unstaged findable by the next start, and only those', () => {
    const { store, repo } = upgraded([
      { controlId: 'M-1', outcome: 'AA', batchId: 1 },
      { controlId: 'M-2', outcome: 'AA', batchId: null },
      { controlId: 'M-3', outcome: 'AR', batchId: null },
      { controlId: 'M-4', outcome: 'AA', batchId: 1 },
      { controlId: 'M-5', outcome: 'AE', batchId: null },
      { controlId: 'M-6', outcome: 'received', batchId: null },
    ]);
    expect(store.schemaVersion).toBeGreaterThanOrEqual(24);
    expect(controlIds(repo.unstaged())).toEqual(['M-2', 'M-5']);
    expect(controlIds(repo.unanswered())).toEqual(['M-6']);
    expect(
      store.db.prepare("SELECT count(*) AS n FROM sqlite_schema WHERE name = 'intake_messages_unstaged'").get(),
    ).toEqual({ n: 0 });
    // Answered at the start (as recover does), the row an earlier version left `received` is found as well.
    const received = repo.unanswered()[0]!;
    repo.answer(received.id, 'AA', 'MSH|ACK', null);
    expect(controlIds(repo.unstaged())).toEqual(['M-2', 'M-5', 'M-6']);
  });

  it('never moves the mark past a message still waiting, and past every staged or refused one', () => {
    const { repo } = upgraded([
      { controlId: 'M-1', outcome: 'AA', batchId: 1 },
      { controlId: 'M-2', outcome: 'AA', batchId: 1 },
    ]);
    expect(repo.unstaged()).toEqual([]);
    const record = (controlId: string, outcome: 'AA' | 'AR') =>
      repo.record({
        environmentId: LOCAL.id,
        channel: 'mllp',
        sender: 'EPR-7^CLINIC-H',
        controlId,
        peer: '127.0.0.1:5000',
        raw: Buffer.from(`MSH|^~\\&|EPR-7|CLINIC-H|||||RDE^O11|${controlId}|P|2.5`),
        outcome,
        ack: 'MSH|ACK',
        batchId: null,
      });
    const waiting = record('M-3', 'AA'); // its staging failed: it waits for the next start
    record('M-4', 'AR');
    const staged = record('M-5', 'AA');
    repo.db.transaction(() => {
      repo.setBatch(staged, 1);
      repo.advanceStagedThrough();
    })();
    expect(controlIds(repo.unstaged())).toEqual(['M-3']);

    // Staged at last (the next start): the mark passes it, and every row after it that needs nothing.
    repo.db.transaction(() => {
      repo.setBatch(waiting, 1);
      repo.advanceStagedThrough();
    })();
    expect(repo.unstaged()).toEqual([]);
    const later = record('M-6', 'AA');
    expect(repo.unstaged().map((r) => r.id)).toEqual([later]);
  });

  it('reads only the rows after the mark to find them, not the whole table', () => {
    const { store } = upgraded([]);
    const plan = (sql: string) =>
      store.db
        .prepare<[], { detail: string }>(`EXPLAIN QUERY PLAN ${sql}`)
        .all()
        .map((row) => row.detail)
        .join('; ');
    expect(
      plan(
        `SELECT * FROM intake_messages WHERE id > coalesce((SELECT message_id FROM intake_staged_through), 0)
         AND batch_id IS NULL AND outcome IN ('AA', 'AE') ORDER BY id`,
      ),
    ).toMatch(/SEARCH intake_messages USING INTEGER PRIMARY KEY \(rowid>\?\)/);
  });
});
