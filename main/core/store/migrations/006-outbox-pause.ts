import type Database from 'better-sqlite3';

/**
 * The admin's pause of an environment's outbox, kept across restarts (NULL: not paused). A sign-in stop is not
 * stored: the next start finds out again whether the token works.
 */
export function up(db: Database.Database): void {
  db.exec(`
ALTER TABLE environments ADD COLUMN paused_reason TEXT
  CHECK (paused_reason IS NULL OR length(paused_reason) BETWEEN 1 AND 500);
`);
}
