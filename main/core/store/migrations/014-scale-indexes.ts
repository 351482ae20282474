import type Database from 'better-sqlite3';

/**
 * A year of orders on one laptop (issue #16): every call a screen, the submitter or the poller makes finds its rows
 * through an index, and the counts per state are kept, not counted.
 *
 * - `orders_by_state (environment_id, state, id)` replaces `orders_due (environment_id, state, next_attempt_at)`,
 *   whose leading columns it keeps (the claim reads `orders_due_in_order`): a state filter and start-up recovery
 *   read one state's orders newest or oldest first as a range of it, with no more indexes for a state change to
 *   move than before.
 * - `orders_by_clinic`, `orders_by_remote_status` (only orders with a status) and `orders_by_created_at`: the Orders
 *   screen's other filters. The first is written once per order; the others move only when the poller records a
 *   status, never on the submitter's path.
 * - `orders_polled`: the orders the status poller still watches (at the service, with a pharmacy order id, not yet
 *   processed or cancelled remotely; a `cancel_sent` order always), so a round reads those, not the history. The
 *   status names are written out (a shipped migration never changes); a test checks them against
 *   `main/core/tracking/tracked-orders.ts`. The poller's query repeats this WHERE exactly, which is how SQLite
 *   knows the index covers it.
 * - `order_state_counts`: orders per environment and state, kept by triggers in the same statement as the change
 *   (insert, state change, delete: whatever writes), so `countByState` and the outbox's progress read a handful of
 *   rows. Every state has its row from the environment's creation (a trigger on `environments`), so a state change
 * is one UPDATE of its two rows. Filled from the existing
 *   orders here.
 */
export const POLLED_ORDERS_WHERE = `state IN ('created', 'cancel_requested', 'cancel_sent', 'cancel_refused')
  AND pharmacy_order_id IS NOT NULL
  AND (state = 'cancel_sent' OR coalesce(remote_status, '') NOT IN ('Prescription Processed', 'Cancelled'))`;

/** Every order state, written out as migration 1's CHECK lists them (a test compares with order-state.ts). */
export const ORDER_STATES_JSON = JSON.stringify([
  'ready',
  'queued',
  'sending',
  'created',
  'rejected',
  'in_doubt',
  'held',
  'withdrawn',
  'cancel_requested',
  'cancel_sent',
  'cancelled',
  'cancel_refused',
]);

export function up(db: Database.Database): void {
  db.exec(`
DROP INDEX orders_due;
CREATE INDEX orders_by_state ON orders (environment_id, state, id);
CREATE INDEX orders_by_clinic ON orders (environment_id, clinic_code, id);
CREATE INDEX orders_by_remote_status ON orders (environment_id, remote_status, id) WHERE remote_status IS NOT NULL;
CREATE INDEX orders_by_created_at ON orders (environment_id, created_at);
CREATE INDEX orders_polled ON orders (environment_id, id) WHERE ${POLLED_ORDERS_WHERE};

CREATE TABLE order_state_counts (
  environment_id TEXT NOT NULL,
  state TEXT NOT NULL,
  count INTEGER NOT NULL CHECK (count >= 0),
  PRIMARY KEY (environment_id, state)
) STRICT, WITHOUT ROWID;
INSERT INTO order_state_counts (environment_id, state, count)
  SELECT e.id, s.value, (SELECT count(*) FROM orders o WHERE o.environment_id = e.id AND o.state = s.value)
  FROM environments e, json_each('${ORDER_STATES_JSON}') s;

CREATE TRIGGER order_state_counts_environment AFTER INSERT ON environments
BEGIN
  INSERT INTO order_state_counts (environment_id, state, count)
    SELECT NEW.id, value, 0 FROM json_each('${ORDER_STATES_JSON}');
END;
CREATE TRIGGER order_state_counts_insert AFTER INSERT ON orders
BEGIN
  UPDATE order_state_counts SET count = count + 1 WHERE environment_id = NEW.environment_id AND state = NEW.state;
END;
CREATE TRIGGER order_state_counts_update AFTER UPDATE OF state ON orders WHEN OLD.state IS NOT NEW.state
BEGIN
  UPDATE order_state_counts SET count = count + (state = NEW.state) - (state = OLD.state)
    WHERE environment_id = NEW.environment_id AND state IN (OLD.state, NEW.state);
END;
CREATE TRIGGER order_state_counts_moved AFTER UPDATE OF environment_id ON orders
  WHEN OLD.environment_id IS NOT NEW.environment_id
BEGIN
  UPDATE order_state_counts SET count = count - 1 WHERE environment_id = OLD.environment_id AND state = OLD.state;
  UPDATE order_state_counts SET count = count + 1 WHERE environment_id = NEW.environment_id AND state = NEW.state;
END;
CREATE TRIGGER order_state_counts_delete AFTER DELETE ON orders
BEGIN
  UPDATE order_state_counts SET count = count - 1 WHERE environment_id = OLD.environment_id AND state = OLD.state;
END;
`);
}
