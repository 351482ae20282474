import type Database from 'better-sqlite3';

/**
 * Live intake's staging rules kept per environment (issue #17), so `rx-batch serve` and the app's Intake screen
 * start with the same rules without anyone retyping them:
 * - `intake_rules`: one row per environment that saved rules; `on_arrival` is the default for every sender not
 *   listed (`send`: valid orders accepted into the outbox as they arrive; `hold`: left for review in Preview). No
 *   row: everything is held, as before this migration.
 * - `intake_sender_rules`: a sender's own rule, by `APP^FACILITY` or `APP` (MSH-3, MSH-4), one per sender;
 *   `position` keeps the order the admin listed them in. Deleted with its environment's row.
 * The keys are checked before they are written (shared/intake-rules.ts); the CHECKs here only bound them.
 */
export function up(db: Database.Database): void {
  db.exec(`
CREATE TABLE intake_rules (
  environment_id TEXT PRIMARY KEY REFERENCES environments (id),
  on_arrival TEXT NOT NULL CHECK (on_arrival IN ('send', 'hold')),
  updated_at TEXT NOT NULL
) STRICT;

CREATE TABLE intake_sender_rules (
  environment_id TEXT NOT NULL REFERENCES intake_rules (environment_id) ON DELETE CASCADE,
  sender TEXT NOT NULL CHECK (length(sender) BETWEEN 1 AND 101),
  on_arrival TEXT NOT NULL CHECK (on_arrival IN ('send', 'hold')),
  position INTEGER NOT NULL CHECK (position >= 0),
  PRIMARY KEY (environment_id, sender)
) STRICT, WITHOUT ROWID;
`);
}
