import type Database from 'better-sqlite3';

/**
 * What the status poller remembers of a created order whose lookup lists a record that may be it but is not taken
 * as it (main/core/tracking/listed-differently.ts has the rule): its clinic order id differs from ours only in case
 * or spaces, or its pharmacy order id is not the one the create returned.
 * - `listed_clinic_order_id`, `listed_pharmacy_order_id`: the record's ids, as the service gave them (the pharmacy
 *   id may be absent: every field of a record is nullable; the clinic order id is always there, as the rule needs it),
 * - `listed_differently_at`: when the service first listed it so.
 * On the row, so every reader of an order sees the note; a lookup that finds the order clears it, and so does the
 * "not found at the service" flag (026) when misses follow. Identifiers only; the state is never touched by it.
 */
export function up(db: Database.Database): void {
  db.exec(`
ALTER TABLE orders ADD COLUMN listed_clinic_order_id TEXT;
ALTER TABLE orders ADD COLUMN listed_pharmacy_order_id TEXT
  CHECK (listed_pharmacy_order_id IS NULL OR listed_clinic_order_id IS NOT NULL);
ALTER TABLE orders ADD COLUMN listed_differently_at TEXT
  CHECK ((listed_differently_at IS NULL) = (listed_clinic_order_id IS NULL));
`);
}
