import type Database from 'better-sqlite3';

/**
 * The orders whose lookups need a person: flagged as not found at the service (026's `not_found_flagged_at`) or
 * listed there under other ids (027's `listed_differently_at`). Written once here for the index and the queries
 * that must match it word for word for SQLite to use it.
 */
export const SERVICE_NOTED_WHERE = '(not_found_flagged_at IS NOT NULL OR listed_differently_at IS NOT NULL)';

/**
 * Those orders, found by an index of them alone: the Submissions screen's "Orders that need attention" and
 * `rx-batch submit`'s count read them beside the orders rejected, held or refused a cancel, on every reload, and
 * without it each read scanned every order of the history for the few noted. The index holds only noted orders
 * (none, usually), and SQLite keeps it as notes come and go.
 */
export function up(db: Database.Database): void {
  db.exec(`CREATE INDEX orders_service_noted ON orders (environment_id, id) WHERE ${SERVICE_NOTED_WHERE};`);
}
