import type Database from 'better-sqlite3';

/**
 * Live intake's records (issue #17, main/core/intake/):
 * - `intake_messages`: every message an MLLP listener received: the sender (MSH-3^MSH-4), its control id (MSH-10),
 *   when and from which peer, the raw bytes, the outcome (`received` until it has been answered, then the ACK code),
 *   the ACK sent and the batch it fed. One row per environment, sender and control id: a resend is answered from it.
 *   `intake_messages_unstaged`: messages answered but not yet staged (staging follows the ACK), for the start.
 * - `intake_files`: the content hash of each file a watched folder imported, so the same content is not imported
 *   twice.
 *
 * Before this migration the intake created these tables itself when it first opened them, with these same
 * statements; `IF NOT EXISTS` lets a store that already has them (and their rows) pass through unchanged.
 */
export function up(db: Database.Database): void {
  db.exec(`
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
CREATE INDEX IF NOT EXISTS intake_messages_unstaged ON intake_messages (id)
  WHERE batch_id IS NULL AND outcome IN ('AA', 'AE');
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
`);
}
