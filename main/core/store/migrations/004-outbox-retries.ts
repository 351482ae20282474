import type Database from 'better-sqlite3';

/**
 * What the submitter must remember across restarts about an order's sends:
 * - `was_in_doubt`: a send of this order once went unanswered. A later `400 duplicate clinicOrderId` then means
 *   "the service already has it" (look it up), where for an order never in doubt it is a real rejection.
 * - `retry_failures`: failed sends of this order while the service was answering others; past the limit the
 *   order is set aside as poison. Failures during an outage are not counted.
 * And an index in the exact order the submitter takes due work (`coalesce(next_attempt_at, created_at), id`), so
 * claiming from a queue of tens of thousands reads the first rows instead of sorting them all on every claim.
 */
export function up(db: Database.Database): void {
  db.exec(`
ALTER TABLE orders ADD COLUMN was_in_doubt INTEGER NOT NULL DEFAULT 0 CHECK (was_in_doubt IN (0, 1));
ALTER TABLE orders ADD COLUMN retry_failures INTEGER NOT NULL DEFAULT 0 CHECK (retry_failures >= 0);
CREATE INDEX orders_due_in_order ON orders (environment_id, state, coalesce(next_attempt_at, created_at), id);
`);
}
