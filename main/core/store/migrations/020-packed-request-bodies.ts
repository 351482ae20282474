import type Database from 'better-sqlite3';

/**
 * Packed request bodies (issue #16, "Size"): retention stores a finished order's request body deflated with a
 * preset dictionary (`request-body-codec.ts`), losslessly, once the order was accepted `staged_days` ago.
 *
 * - `orders.request_body_packed`: the packed form (its first byte names the format and so the dictionary; a CRC-32
 *   and the length follow), or NULL while `request_body` holds the text itself. When set, `request_body` holds
 *   only the mark `*` (the column may not be empty), and every reader unpacks this column instead.
 * - `orders_bodies_to_pack`: the orders whose body is still text, so a run reads those (the open ones and the
 *   newest) and not the history. A state change does not touch it; only the insert and the packing do.
 */
export function up(db: Database.Database): void {
  db.exec(`
ALTER TABLE orders ADD COLUMN request_body_packed BLOB
  CHECK (request_body_packed IS NULL OR (request_body = '*' AND length(request_body_packed) >= 6));
CREATE INDEX orders_bodies_to_pack ON orders (id) WHERE request_body_packed IS NULL;
`);
}
