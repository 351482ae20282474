import type Database from 'better-sqlite3';

/**
 * Retention (issue #16, "Size"): how long the staging copies of orders are kept once nothing needs them, and
 * what has been compacted.
 *
 * - `retention_settings`: one row. `staged_days`: days an accepted order's staged copy (its imported body,
 *   problems, provenance, original CSV records or HL7 message, edit cells) is kept after the order was accepted,
 *   and a discarded batch's staged orders after it was discarded; NULL keeps them for ever. 90 by default.
 * - `staged_orders.compacted_at`: when that row's copies were dropped (its position, lines and message number
 *   stay, so an order still names where it came from).
 * - `import_batches.compacted_at`: when retention finished with the batch (every staged row it may compact is
 *   compacted: a discarded batch's rows deleted, an accepted batch's copies dropped with none left staged), so
 *   later runs skip it. `import_batches_to_compact` lists the others, so a run reads what is left, not the history.
 *
 * Orders, their request bodies, statuses, attempts and the audit log are not touched by retention.
 */
export function up(db: Database.Database): void {
  db.exec(`
CREATE TABLE retention_settings (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  staged_days INTEGER CHECK (staged_days IS NULL OR staged_days BETWEEN 1 AND 36500),
  updated_at TEXT NOT NULL
) STRICT;
INSERT INTO retention_settings (id, staged_days, updated_at) VALUES (1, 90, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));

ALTER TABLE staged_orders ADD COLUMN compacted_at TEXT;
ALTER TABLE import_batches ADD COLUMN compacted_at TEXT;
CREATE INDEX import_batches_to_compact ON import_batches (id) WHERE compacted_at IS NULL;
`);
}
