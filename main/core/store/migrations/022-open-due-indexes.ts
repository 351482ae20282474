import type Database from 'better-sqlite3';

/**
 * The due order on what is open only (issue #16, "Size"): `orders_due_in_order` (migration 4) held every order ever
 * (about 64 bytes an order) to find queued and in-doubt orders that are due. It becomes one partial index per state
 * that is looked up, in the same order (`coalesce(next_attempt_at, created_at), id`), holding only the orders in that
 * state now:
 * - `orders_queued_due`: the submitter's claim of due queued orders, earliest due first;
 * - `orders_in_doubt_due`: the in-doubt orders due for a lookup.
 * One index per state because SQLite uses a partial index only for a query whose WHERE implies the index's:
 * `state = 'queued'` implies `state = 'queued'`, not `state IN ('queued', 'in_doubt')`. Each query names its state
 * (outbox-queue-repo's next-due time asks each state on its own). A state change now moves an entry only when the
 * order enters or leaves one of these two states; an order sent and created leaves nothing behind.
 * Building them reads every order once, at the first start of this version.
 */
export function up(db: Database.Database): void {
  db.exec(`
DROP INDEX orders_due_in_order;
CREATE INDEX orders_queued_due ON orders (environment_id, coalesce(next_attempt_at, created_at), id)
  WHERE state = 'queued';
CREATE INDEX orders_in_doubt_due ON orders (environment_id, coalesce(next_attempt_at, created_at), id)
  WHERE state = 'in_doubt';
`);
}
