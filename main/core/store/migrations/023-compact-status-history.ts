import type Database from 'better-sqlite3';
import { AT_AS_NUMBER_SQL, AT_TEXT_SQL } from './021-compact-audit-log.js';

/**
 * The status history in a compact form (issue #16 "Size": about 80 bytes a status, three statuses an order). The
 * service's status texts are few and repeat in every row ("Prescription Dispatched"), so each is kept once in
 * `remote_statuses` and a row holds its number; the time a status was seen is milliseconds (a row whose text would
 * not come back exactly keeps it). The rows are kept in the order they are read, an order's together
 * (WITHOUT ROWID, keyed by order and id), so the index `status_history_by_order` that held the same pairs goes.
 * Every row is copied as it reads today (status-history-repo.ts gives back the same text), under the same id; a
 * new status takes the next id after its order's last.
 */
export function up(db: Database.Database): void {
  const observed = AT_AS_NUMBER_SQL('observed_at');
  db.exec(`
CREATE TABLE remote_statuses (
  id INTEGER PRIMARY KEY,
  text TEXT NOT NULL UNIQUE
) STRICT;
INSERT INTO remote_statuses (text) SELECT DISTINCT status FROM status_history ORDER BY status;

CREATE TABLE status_history_compact (
  order_id INTEGER NOT NULL REFERENCES orders (id),
  id INTEGER NOT NULL CHECK (id >= 1),
  status INTEGER NOT NULL REFERENCES remote_statuses (id),
  dispatch_date TEXT,
  tracking_id TEXT,
  observed_at ANY NOT NULL CHECK (typeof(observed_at) IN ('integer', 'text')),
  PRIMARY KEY (order_id, id)
) STRICT, WITHOUT ROWID;
INSERT INTO status_history_compact (id, order_id, status, dispatch_date, tracking_id, observed_at)
SELECT id, order_id, (SELECT id FROM remote_statuses WHERE text = status), dispatch_date, tracking_id,
  CASE WHEN ${AT_TEXT_SQL(observed)} = observed_at THEN ${observed} ELSE observed_at END
FROM status_history ORDER BY order_id, id;

DROP TABLE status_history;
ALTER TABLE status_history_compact RENAME TO status_history;
`);
}
