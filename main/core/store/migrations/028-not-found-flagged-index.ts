import type Database from 'better-sqlite3';

/**
 * The orders flagged as not found at the service (026's `not_found_flagged_at`), found by an index of them alone:
 * the Submissions screen's "Orders that need attention" and `rx-batch submit`'s count read them beside the orders
 * rejected, held or refused a cancel, on every reload, and without it each read scanned every order of the history
 * for the few flagged. The index holds only flagged orders (none, usually), and SQLite keeps it as flags come and go.
 * (027 is another branch's, handed out ahead.)
 */
export function up(db: Database.Database): void {
  db.exec(`
CREATE INDEX orders_not_found_flagged ON orders (environment_id, id) WHERE not_found_flagged_at IS NOT NULL;
`);
}
