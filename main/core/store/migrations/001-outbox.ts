import type Database from 'better-sqlite3';

/**
 * The outbox: API profiles, import batches, orders (with the exact body to send), attempts, remote status
 * history and cancellations. Times are ISO-8601 UTC texts (they sort as they compare); STRICT tables make
 * SQLite keep the declared types. Value lists are written out, not taken from order-state.ts: a shipped migration
 * must create the same schema forever (migrations.test.ts checks that they still match the code).
 */
export function up(db: Database.Database): void {
  db.exec(`
CREATE TABLE environments (
  id TEXT PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 40),
  name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 80),
  kind TEXT NOT NULL CHECK (kind IN ('local-sandbox', 'remote')),
  api_base_url TEXT NOT NULL,
  issuer TEXT NOT NULL,
  client_id TEXT NOT NULL,
  grant_type TEXT NOT NULL CHECK (grant_type IN ('device', 'client_credentials')),
  scopes TEXT NOT NULL CHECK (json_valid(scopes) AND json_type(scopes) = 'array'),
  create_with_clinic_version TEXT NOT NULL CHECK (create_with_clinic_version IN ('v1', 'v2')),
  request_timeout_ms INTEGER NOT NULL CHECK (request_timeout_ms BETWEEN 1000 AND 300000),
  code_lists TEXT NOT NULL CHECK (json_valid(code_lists) AND json_type(code_lists) = 'object'),
  concurrency INTEGER NOT NULL CHECK (concurrency BETWEEN 1 AND 16),
  rate_per_second REAL NOT NULL CHECK (rate_per_second > 0 AND rate_per_second <= 100),
  poll_interval_ms INTEGER NOT NULL CHECK (poll_interval_ms BETWEEN 5000 AND 86400000),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT;

CREATE TABLE import_batches (
  id INTEGER PRIMARY KEY,
  environment_id TEXT NOT NULL REFERENCES environments (id),
  source_file_name TEXT NOT NULL CHECK (length(source_file_name) BETWEEN 1 AND 255),
  kind TEXT NOT NULL CHECK (kind IN ('csv', 'hl7', 'json')),
  row_count INTEGER NOT NULL CHECK (row_count >= 0),
  invalid_count INTEGER NOT NULL CHECK (invalid_count BETWEEN 0 AND row_count),
  order_count INTEGER NOT NULL DEFAULT 0 CHECK (order_count >= 0),
  created_at TEXT NOT NULL
) STRICT;
CREATE INDEX import_batches_by_environment ON import_batches (environment_id, id);

CREATE TABLE orders (
  id INTEGER PRIMARY KEY,
  batch_id INTEGER NOT NULL REFERENCES import_batches (id),
  environment_id TEXT NOT NULL REFERENCES environments (id),
  clinic_code TEXT NOT NULL CHECK (length(clinic_code) BETWEEN 1 AND 64),
  clinic_order_id TEXT NOT NULL CHECK (length(clinic_order_id) BETWEEN 1 AND 64),
  route TEXT NOT NULL CHECK (route IN ('v1', 'v2', 'hl7')),
  request_body TEXT NOT NULL CHECK (length(request_body) > 0),
  state TEXT NOT NULL CHECK (state IN ('ready', 'queued', 'sending', 'created', 'rejected', 'in_doubt', 'held', 'withdrawn',
    'cancel_requested', 'cancel_sent', 'cancelled', 'cancel_refused')),
  pharmacy_order_id INTEGER CHECK (pharmacy_order_id > 0),
  remote_status TEXT,
  remote_status_at TEXT,
  dispatch_date TEXT,
  tracking_id TEXT,
  last_error_kind TEXT CHECK (last_error_kind IN ('retryable', 'in-doubt', 'auth', 'rejected')),
  last_error_message TEXT,
  last_error_field TEXT,
  attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  next_attempt_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  CHECK (pharmacy_order_id IS NOT NULL OR state NOT IN ('created', 'cancel_requested', 'cancel_sent', 'cancelled', 'cancel_refused')),
  CHECK ((last_error_kind IS NULL) = (last_error_message IS NULL)),
  CHECK (last_error_field IS NULL OR last_error_kind IS NOT NULL)
) STRICT;
-- An order the outbox has accepted exists once per environment and clinic, as the service's duplicate rule says;
-- staged, rejected and withdrawn rows never reached the service, so a corrected re-import may reuse the id.
CREATE UNIQUE INDEX orders_accepted_once ON orders (environment_id, clinic_code, clinic_order_id)
  WHERE state NOT IN ('ready', 'rejected', 'withdrawn');
CREATE UNIQUE INDEX orders_by_pharmacy_order_id ON orders (environment_id, pharmacy_order_id)
  WHERE pharmacy_order_id IS NOT NULL;
-- The submitter's claim: queued orders of one environment, due first.
CREATE INDEX orders_due ON orders (environment_id, state, next_attempt_at);
CREATE INDEX orders_by_batch ON orders (batch_id);
CREATE INDEX orders_by_clinic_order_id ON orders (clinic_order_id);

CREATE TABLE attempts (
  id INTEGER PRIMARY KEY,
  order_id INTEGER NOT NULL REFERENCES orders (id),
  operation TEXT NOT NULL CHECK (operation IN ('create', 'lookup', 'status', 'cancel')),
  started_at TEXT NOT NULL,
  latency_ms INTEGER CHECK (latency_ms >= 0),
  http_status INTEGER CHECK (http_status BETWEEN 100 AND 599),
  outcome TEXT NOT NULL CHECK (outcome IN ('ok', 'retryable', 'in-doubt', 'auth', 'rejected')),
  error_message TEXT,
  remote_id TEXT
) STRICT;
CREATE INDEX attempts_by_order ON attempts (order_id, id);

CREATE TABLE status_history (
  id INTEGER PRIMARY KEY,
  order_id INTEGER NOT NULL REFERENCES orders (id),
  status TEXT NOT NULL,
  dispatch_date TEXT,
  tracking_id TEXT,
  observed_at TEXT NOT NULL
) STRICT;
CREATE INDEX status_history_by_order ON status_history (order_id, id);

CREATE TABLE cancellations (
  id INTEGER PRIMARY KEY,
  order_id INTEGER NOT NULL REFERENCES orders (id),
  reason TEXT NOT NULL CHECK (length(reason) BETWEEN 1 AND 500),
  state TEXT NOT NULL CHECK (state IN ('requested', 'sent', 'cancelled', 'refused')),
  requested_at TEXT NOT NULL,
  sent_at TEXT,
  result_message TEXT,
  CHECK (state = 'requested' OR sent_at IS NOT NULL)
) STRICT;
CREATE INDEX cancellations_by_order ON cancellations (order_id, id);
-- At most one cancellation in flight per order.
CREATE UNIQUE INDEX cancellations_one_open ON cancellations (order_id) WHERE state IN ('requested', 'sent');
`);
}
