import type Database from 'better-sqlite3';

/**
 * Cheaper audit appends (issue #3: the submitter appends one entry per answer). Migration 2's table carried two
 * indexes no query uses, and one of them cost more than the rest of an append together:
 * - `UNIQUE (hash)`: an index on a random 64-character key, so every append wrote into a random page of it (a
 *   log of 40,000 entries: about 34 µs an append with it, 14 µs without, and the gap grows with the log). Nothing
 *   looks an entry up by its hash, and the hash cannot repeat anyway: it covers `seq`, the primary key. The
 *   chain's guarantees are the trigger's (next seq, last hash) and `verifyAuditChain`'s, not this index's.
 * - `audit_entries_by_clinic_order`: no query filters on those columns (the log's search is a text match over the
 *   newest entries, read backwards by seq).
 * A UNIQUE constraint cannot be dropped in SQLite, so the table is rebuilt: same columns, CHECKs, rows (copied
 * as they are, so every hash still verifies), the other two indexes and the three triggers that keep it
 * append-only. Dropping the triggers first makes the copy's removal of the old table fire none of them.
 */
export function up(db: Database.Database): void {
  db.exec(`
DROP TRIGGER audit_entries_no_update;
DROP TRIGGER audit_entries_no_delete;
DROP TRIGGER audit_entries_append_at_end;

CREATE TABLE audit_entries_rebuilt (
  seq INTEGER PRIMARY KEY CHECK (seq >= 1),
  at TEXT NOT NULL,
  actor TEXT NOT NULL CHECK (actor IN ('user', 'submitter', 'system')),
  action TEXT NOT NULL CHECK (length(action) BETWEEN 1 AND 64),
  environment_id TEXT,
  batch_id INTEGER,
  order_id INTEGER,
  clinic_code TEXT,
  clinic_order_id TEXT,
  details TEXT NOT NULL CHECK (json_valid(details) AND json_type(details) = 'object'),
  prev_hash TEXT NOT NULL CHECK (length(prev_hash) = 64),
  hash TEXT NOT NULL CHECK (length(hash) = 64)
) STRICT;
INSERT INTO audit_entries_rebuilt
  (seq, at, actor, action, environment_id, batch_id, order_id, clinic_code, clinic_order_id, details, prev_hash, hash)
SELECT seq, at, actor, action, environment_id, batch_id, order_id, clinic_code, clinic_order_id, details, prev_hash, hash
FROM audit_entries ORDER BY seq;
DROP TABLE audit_entries;
ALTER TABLE audit_entries_rebuilt RENAME TO audit_entries;

CREATE INDEX audit_entries_by_order ON audit_entries (order_id) WHERE order_id IS NOT NULL;
CREATE INDEX audit_entries_by_action ON audit_entries (action, seq);

CREATE TRIGGER audit_entries_no_update BEFORE UPDATE ON audit_entries
BEGIN
  SELECT RAISE(ABORT, 'audit entries are append-only');
END;
CREATE TRIGGER audit_entries_no_delete BEFORE DELETE ON audit_entries
BEGIN
  SELECT RAISE(ABORT, 'audit entries are append-only');
END;
CREATE TRIGGER audit_entries_append_at_end BEFORE INSERT ON audit_entries
WHEN NEW.seq IS NOT COALESCE((SELECT max(seq) FROM audit_entries), 0) + 1
  OR NEW.prev_hash IS NOT COALESCE((SELECT hash FROM audit_entries ORDER BY seq DESC LIMIT 1), '0000000000000000000000000000000000000000000000000000000000000000')
BEGIN
  SELECT RAISE(ABORT, 'audit entries are appended at the end of the chain');
END;
`);
}
