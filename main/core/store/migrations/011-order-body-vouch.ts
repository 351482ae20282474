import type Database from 'better-sqlite3';

/**
 * `orders.body_checked` (issue #3): the version of the stored-body check (`main/core/service/stored-body-check.ts`)
 * that this row's `request_body` passed for its `route` when it was written; NULL when it was not checked then
 * (every row before this migration, HL7 bodies, orders enqueued without asking for the check). The client skips
 * its send-time parse only for a row whose number is the current check's, so a NULL or an older number just means
 * "check at send", as before.
 *
 * The trigger keeps the vouch honest if the body or route is ever rewritten (nothing does today): the vouch is
 * cleared by the same statement, so it can only describe the bytes it was recorded for. It fires only on
 * UPDATEs that name those columns, never on the outbox's state changes.
 */
export function up(db: Database.Database): void {
  db.exec(`
ALTER TABLE orders ADD COLUMN body_checked INTEGER CHECK (body_checked IS NULL OR body_checked >= 1);
CREATE TRIGGER orders_body_vouch_cleared AFTER UPDATE OF request_body, route ON orders
  WHEN NEW.body_checked IS NOT NULL
BEGIN
  UPDATE orders SET body_checked = NULL WHERE id = NEW.id;
END;
`);
}
