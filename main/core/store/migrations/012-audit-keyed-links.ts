import type Database from 'better-sqlite3';

/**
 * Keyed audit links (issue #12, finding 6). Each entry says how its link (`hash`) was made: `link_scheme` 1, the
 * plain SHA-256 of migration 2 (every existing row keeps it, untouched: the append-only triggers forbid rewriting
 * them, and they still verify as before), or 2, an HMAC-SHA256 under the audit key whose id is `key_id` (the key
 * itself is held by the host's secret store, never here). The first keyed entry's link covers the last plain
 * entry's hash, so the old entries cannot be swapped without breaking the keyed ones. No index: verification
 * reads the whole log in seq order anyway, and an append writes two small values more.
 */
export function up(db: Database.Database): void {
  db.exec(`
ALTER TABLE audit_entries ADD COLUMN link_scheme INTEGER NOT NULL DEFAULT 1 CHECK (link_scheme IN (1, 2));
ALTER TABLE audit_entries ADD COLUMN key_id TEXT
  CHECK ((link_scheme = 1 AND key_id IS NULL) OR (link_scheme = 2 AND length(key_id) = 16));
`);
}
