import type Database from 'better-sqlite3';

/**
 * Live intake finds the messages it answered but never staged (staging follows the ACK: main/core/intake/README.md)
 * from a mark instead of an index (issue #17, bench/README.md "Session 12"):
 * - `intake_staged_through`: one row; every message row with an id up to `message_id` is staged or needs no
 *   staging. The intake moves it in each staging commit to just below the oldest row still waiting (answered AA or
 *   AE, or `received`, with no batch), so a message whose staging failed keeps it below itself until a start
 *   stages it. The start reads the rows after it.
 * - `intake_messages_unstaged` is dropped: its entry was written in every message's own commit, the one the ACK
 *   waits for (a fourth of that commit's pages), and deleted again by the staging.
 *
 * Set here to just below the oldest row the index held (or `received`), else the last row: every message a store
 * held unstaged is still found, and staged, by the next start.
 */
export function up(db: Database.Database): void {
  db.exec(`
CREATE TABLE intake_staged_through (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  message_id INTEGER NOT NULL CHECK (message_id >= 0)
) STRICT;
INSERT INTO intake_staged_through (id, message_id)
  SELECT 1, coalesce(
    (SELECT min(id) - 1 FROM intake_messages WHERE batch_id IS NULL AND outcome IN ('received', 'AA', 'AE')),
    (SELECT max(id) FROM intake_messages),
    0);
DROP INDEX intake_messages_unstaged;
`);
}
