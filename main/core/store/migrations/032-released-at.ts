import type Database from 'better-sqlite3';

/**
 * `released_at`: when a person last released a held or rejected order whose send once went unanswered ("Send again
 * now", `rx-batch retry`). Such an order is looked up before it is sent again, and the outbox's bounds on refused
 * and missed lookups count from here: counted from its last send, the lookups that held it would hold it again at
 * once, and a person could never resend it. NULL for an order never released. Additive, no backfill.
 */
export function up(db: Database.Database): void {
  db.exec('ALTER TABLE orders ADD COLUMN released_at TEXT');
}
