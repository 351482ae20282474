import type Database from 'better-sqlite3';

/**
 * Environments that stay put (issue #13):
 * - `removed_at`: an environment the admin removed. The row stays, so its orders keep their history (orders and
 *   batches refer to it) and a preset removed on purpose is not seeded again at the next start; a removed
 *   environment is not listed, started or chosen, and adding one with its id again brings it back.
 * - `chosen_at`: when the admin last chose the environment on screen; the one chosen last is chosen at the next
 *   start (the choice is the core's, not one browser profile's).
 */
export function up(db: Database.Database): void {
  db.exec(`
ALTER TABLE environments ADD COLUMN removed_at TEXT;
ALTER TABLE environments ADD COLUMN chosen_at TEXT;
`);
}
