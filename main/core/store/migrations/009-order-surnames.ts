import type Database from 'better-sqlite3';
import type { OrderRoute } from '../order-state.js';
import { patientSurnameKeyOf } from '../request-body-fields.js';

/**
 * Patient-surname search without patient data in any list: one row per order with the surname's search key
 * (case and accents folded, `shared/patient-surname.ts`), indexed, so a prefix is a range scan of the index
 * rather than a parse of 100,000 request bodies. Written by `OrdersRepo.enqueue` with the order; existing orders
 * are back-filled here from their request bodies (customer.surname in JSON, PID-5.1 in HL7). An order whose body
 * names no surname has no row. The key function is part of the stored data: changing it needs a migration that
 * recomputes the keys.
 */
export function up(db: Database.Database): void {
  db.exec(`
CREATE TABLE order_surnames (
  order_id INTEGER PRIMARY KEY REFERENCES orders (id),
  surname_key TEXT NOT NULL CHECK (length(surname_key) BETWEEN 1 AND 400)
) STRICT;
CREATE INDEX order_surnames_by_key ON order_surnames (surname_key);
`);
  backfill(db);
}

const PAGE = 500;

function backfill(db: Database.Database): void {
  const page = db.prepare<[number, number], { id: number; route: OrderRoute; requestBody: string }>(
    'SELECT id, route, request_body AS requestBody FROM orders WHERE id > ? ORDER BY id LIMIT ?',
  );
  const insert = db.prepare('INSERT INTO order_surnames (order_id, surname_key) VALUES (?, ?)');
  for (let afterId = 0; ;) {
    const rows = page.all(afterId, PAGE);
    if (rows.length === 0) return;
    for (const row of rows) {
      const key = patientSurnameKeyOf(row.route, row.requestBody);
      if (key !== null) insert.run(row.id, key);
    }
    afterId = rows[rows.length - 1]!.id;
  }
}
