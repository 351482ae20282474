import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { IntakeRepo } from './intake-repo.js';
import { migrate } from './migrations/index.js';
import { openDatabase } from './open-database.js';
import { openStore, STORE_FILE, type Store } from './store.js';
import { LOCAL, removeDir, tempDataDir } from './testing/store-fixtures.js';

/**
 * Migration 015 moves live intake's tables into the numbered migrations. Before it, `IntakeRepo` created them when
 * the intake first opened them: a store may reach 015 with them (and their rows) or without them.
 */

/** What IntakeRepo ran at open before migration 015 (the statements as they were). */
const CREATED_BY_THE_INTAKE_BEFORE_015 = `
CREATE TABLE IF NOT EXISTS intake_messages (
  id INTEGER PRIMARY KEY,
  environment_id TEXT NOT NULL,
  channel TEXT NOT NULL,
  sender TEXT NOT NULL,
  control_id TEXT NOT NULL,
  received_at TEXT NOT NULL,
  peer TEXT NOT NULL,
  raw BLOB NOT NULL,
  outcome TEXT NOT NULL CHECK (outcome IN ('received', 'AA', 'AE', 'AR')),
  ack TEXT,
  batch_id INTEGER,
  answered_at TEXT
) STRICT;
CREATE UNIQUE INDEX IF NOT EXISTS intake_messages_by_control_id
  ON intake_messages (environment_id, sender, control_id) WHERE control_id <> '';
CREATE INDEX IF NOT EXISTS intake_messages_unanswered ON intake_messages (outcome) WHERE outcome = 'received';
CREATE TABLE IF NOT EXISTS intake_files (
  content_hash TEXT NOT NULL,
  environment_id TEXT NOT NULL,
  folder TEXT NOT NULL,
  file_name TEXT NOT NULL,
  imported_at TEXT NOT NULL,
  outcome TEXT NOT NULL,
  batch_id INTEGER,
  PRIMARY KEY (environment_id, content_hash)
) STRICT;
`;

const AT = '2026-11-20T10:00:00.000Z';

/** A store file at schema 14, as the release before 015 left it; with the intake's tables when `intakeRan`. */
function writeSchema14File(dataDir: string, intakeRan: boolean): void {
  const db = openDatabase(join(dataDir, STORE_FILE));
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('foreign_keys = ON');
    migrate(db, { target: 14 });
    expect(db.pragma('user_version', { simple: true })).toBe(14);
    if (!intakeRan) return;
    db.exec(CREATED_BY_THE_INTAKE_BEFORE_015);
    db.prepare(
      `INSERT INTO intake_messages (environment_id, channel, sender, control_id, received_at, peer, raw, outcome, ack,
         answered_at)
       VALUES (?, 'mllp', 'EPR-7^CLINIC-H', 'MSG-1', ?, '127.0.0.1:5000', ?, 'AA', 'MSH|ACK', ?)`,
    ).run(LOCAL.id, AT, Buffer.from('MSH|^~\\&|EPR-7|CLINIC-H'), AT);
    db.prepare(
      `INSERT INTO intake_files (content_hash, environment_id, folder, file_name, imported_at, outcome)
       VALUES ('abc123', ?, '/in', 'orders.csv', ?, 'imported')`,
    ).run(LOCAL.id, AT);
  } finally {
    db.close();
  }
}

/** Migration 015's objects (later migrations add intake tables of their own: 019's rules). */
function tableNames(store: Store): string[] {
  return store.db
    .prepare<[], { name: string }>(
      "SELECT name FROM sqlite_schema WHERE (name LIKE 'intake_messages%' OR name = 'intake_files') ORDER BY name",
    )
    .all()
    .map((row) => row.name);
}

const INTAKE_OBJECTS = [
  'intake_files',
  'intake_messages',
  'intake_messages_by_control_id',
  'intake_messages_unanswered',
];

describe('migration 015 (intake tables)', () => {
  const dirs: string[] = [];
  const stores: Store[] = [];
  afterEach(() => {
    for (const store of stores.splice(0)) store.close();
    for (const dir of dirs.splice(0)) removeDir(dir);
  });

  function open(dataDir: string): Store {
    const store = openStore({ dataDir });
    stores.push(store);
    return store;
  }

  it('upgrades a store whose intake already made its tables, keeping their rows and the resend lookup', () => {
    const dataDir = tempDataDir();
    dirs.push(dataDir);
    writeSchema14File(dataDir, true);

    const store = open(dataDir);
    expect(store.schemaVersion).toBeGreaterThanOrEqual(15);
    expect(tableNames(store)).toEqual(INTAKE_OBJECTS);
    const repo = new IntakeRepo(store.db, store.now);
    const kept = repo.find(LOCAL.id, 'EPR-7^CLINIC-H', 'MSG-1');
    expect(kept).toMatchObject({ outcome: 'AA', ack: 'MSH|ACK', peer: '127.0.0.1:5000' });
    expect(repo.fileSeen(LOCAL.id, 'abc123')).toEqual({ outcome: 'imported', batchId: null });
    // The unique index is still there: the same sender and control id cannot be recorded twice.
    expect(() =>
      repo.receive({
        environmentId: LOCAL.id,
        channel: 'mllp',
        sender: 'EPR-7^CLINIC-H',
        controlId: 'MSG-1',
        peer: '127.0.0.1:5001',
        raw: Buffer.from('MSH'),
      }),
    ).toThrow(/UNIQUE constraint failed/);
  });

  it('creates the tables in a store whose intake never ran, so the repository needs no set-up of its own', () => {
    const dataDir = tempDataDir();
    dirs.push(dataDir);
    writeSchema14File(dataDir, false);

    const store = open(dataDir);
    expect(tableNames(store)).toEqual(INTAKE_OBJECTS);
    const repo = new IntakeRepo(store.db, store.now);
    const record = repo.receive({
      environmentId: LOCAL.id,
      channel: 'mllp',
      sender: 'EPR-7^CLINIC-H',
      controlId: 'MSG-2',
      peer: '127.0.0.1:5000',
      raw: Buffer.from('MSH|^~\\&|EPR-7|CLINIC-H'),
    });
    expect(repo.unanswered().map((r) => r.id)).toEqual([record.id]);
  });

  it('gives a new store the same tables', () => {
    const dataDir = tempDataDir();
    dirs.push(dataDir);
    expect(tableNames(open(dataDir))).toEqual(INTAKE_OBJECTS);
  });

  it("finds a sender's control id through the partial unique index, not by reading the table", () => {
    const dataDir = tempDataDir();
    dirs.push(dataDir);
    const store = open(dataDir);
    const plan = store.db
      .prepare<[], { detail: string }>(
        `EXPLAIN QUERY PLAN SELECT * FROM intake_messages
         WHERE environment_id = 'e' AND sender = 's' AND control_id = 'c' AND control_id <> ''`,
      )
      .all()
      .map((row) => row.detail)
      .join('; ');
    expect(plan).toMatch(/USING INDEX intake_messages_by_control_id/);
  });
});
