import type Database from 'better-sqlite3';

/**
 * What the status poller remembers of an order the service keeps answering "no such order" for (a created order
 * deleted there, an environment pointing at another service, a reset, a clinic-scope change;
 * main/core/tracking/lost-at-service.ts has the rule):
 * - `not_found_lookups`: lookups in a row that did not find it (0: the last one did, or none was made),
 * - `not_found_since`: when the first of them was made,
 * - `not_found_flagged_at`: when the order was flagged for a person (once per run), NULL until then.
 * On the row, so every reader of an order sees the flag and a restart keeps the count; a lookup that finds the
 * order sets all three back. Additive: the order's state and status are never touched by it.
 */
export function up(db: Database.Database): void {
  db.exec(`
ALTER TABLE orders ADD COLUMN not_found_lookups INTEGER NOT NULL DEFAULT 0 CHECK (not_found_lookups >= 0);
ALTER TABLE orders ADD COLUMN not_found_since TEXT CHECK ((not_found_since IS NULL) = (not_found_lookups = 0));
ALTER TABLE orders ADD COLUMN not_found_flagged_at TEXT
  CHECK (not_found_flagged_at IS NULL OR not_found_since IS NOT NULL);
`);
}
