import type Database from 'better-sqlite3';

/**
 * Import staging: what an import read, kept for review, fixing and accepting.
 * - `staged_orders`: one row per order an import produced, valid or not, with its v1 body (as imported or as the
 *   admin edited it), problems, provenance and source (CSV records for the error export, the HL7 message for the
 *   forward route). An order becomes an `orders` row only when accepted; `order_id` then names it (for a cancel
 *   message, the order it cancelled). Big JSON columns are written only by the store, so they carry no
 *   json_valid CHECK: 50,000 orders would pay for parsing every body twice.
 * - `import_batches.route` (per batch: v1 create-with-clinic, v2 create, HL7 forward) and `report` (encoding,
 *   delimiter, header, message types, profile, file problems).
 * - `mapping_profiles`: saved CSV/HL7 mapping profiles, found by the file's header fingerprint.
 */
export function up(db: Database.Database): void {
  db.exec(`
ALTER TABLE import_batches ADD COLUMN route TEXT NOT NULL DEFAULT 'v1' CHECK (route IN ('v1', 'v2', 'hl7'));
ALTER TABLE import_batches ADD COLUMN report TEXT CHECK (report IS NULL OR json_valid(report));

CREATE TABLE staged_orders (
  id INTEGER PRIMARY KEY,
  batch_id INTEGER NOT NULL REFERENCES import_batches (id),
  position INTEGER NOT NULL CHECK (position >= 1),
  clinic_code TEXT,
  clinic_order_id TEXT,
  order_control TEXT NOT NULL CHECK (order_control IN ('NW', 'CA')),
  body TEXT NOT NULL,
  valid INTEGER NOT NULL CHECK (valid IN (0, 1)),
  problems TEXT NOT NULL,
  provenance TEXT NOT NULL,
  source TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('staged', 'accepted')),
  order_id INTEGER REFERENCES orders (id),
  edited_at TEXT,
  CHECK ((state = 'accepted') = (order_id IS NOT NULL))
) STRICT;
CREATE UNIQUE INDEX staged_orders_by_position ON staged_orders (batch_id, position);
CREATE INDEX staged_orders_by_state ON staged_orders (batch_id, state, valid, position);
-- An edit that changes an order's identity checks the rest of its batch for the same order.
CREATE INDEX staged_orders_by_identity ON staged_orders (batch_id, clinic_code, clinic_order_id);

CREATE TABLE mapping_profiles (
  name TEXT PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 80),
  header_fingerprint TEXT,
  header_cells TEXT CHECK (header_cells IS NULL OR (json_valid(header_cells) AND json_type(header_cells) = 'array')),
  profile TEXT NOT NULL CHECK (json_valid(profile) AND json_type(profile) = 'object'),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT;
CREATE INDEX mapping_profiles_by_fingerprint ON mapping_profiles (header_fingerprint);
`);
}
