import type Database from 'better-sqlite3';
import { namesNotAnOrder } from '../not-an-order-sql.js';

/**
 * The staged entries that are no order at all (a message of another type, unreadable, no item), found by an index
 * of them alone: a batch's counts say how many of its invalid entries they are, and reading every invalid entry's
 * problems for that cost 35–50 ms a call in a batch of 20,000 (the problems sit in the row's overflow pages), on each
 * edit's answer. The index holds only such entries (none in a batch of orders), and SQLite keeps it as rows change.
 * The codes are NOT_AN_ORDER_CODES as they were when this landed; migrations.test.ts checks they still are (a
 * change of the codes needs a migration that builds the index again, or the counts' query would not use it).
 */
export function up(db: Database.Database): void {
  db.exec(`
CREATE INDEX staged_orders_not_orders ON staged_orders (batch_id)
  WHERE valid = 0 AND ${namesNotAnOrder(['hl7.unreadable', 'hl7.messageType', 'hl7.headerOnly', 'hl7.noItems'])};
`);
}
