import type Database from 'better-sqlite3';

/**
 * The append-only audit log. Hash chaining makes tampering detectable; the triggers make it hard to do by
 * accident: no UPDATE, no DELETE, and an INSERT must take the next seq and name the last hash (which also stops
 * INSERT OR REPLACE from rewriting an old row, since REPLACE's implicit delete fires no trigger).
 */
export function up(db: Database.Database): void {
  db.exec(`
CREATE TABLE audit_entries (
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
  hash TEXT NOT NULL UNIQUE CHECK (length(hash) = 64)
) STRICT;
CREATE INDEX audit_entries_by_order ON audit_entries (order_id) WHERE order_id IS NOT NULL;
CREATE INDEX audit_entries_by_clinic_order ON audit_entries (clinic_code, clinic_order_id)
  WHERE clinic_order_id IS NOT NULL;
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
