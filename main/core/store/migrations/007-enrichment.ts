import type Database from 'better-sqlite3';

/**
 * Online enrichment of staged batches (main/core/enrichment/):
 * - `service_answers`: the Order Service's last answer per environment and question (a product search for a dm+d
 *   code, its stock, the price of N packs, the courier list), with the time it came, so the preview reads it offline
 *   with its age and later batches sharing a code can reuse it. A failed attempt is kept beside the last good
 *   answer (never over it): `failure` says why (offline, signed out, service error) and when.
 * - `batch_enrichments`: the last check of each batch (when, how it ended, counts), for the preview's summary.
 * Keys are short and bounded: a dm+d code is at most 18 digits; a price key is `<code>x<packs>`.
 */
export function up(db: Database.Database): void {
  db.exec(`
CREATE TABLE service_answers (
  environment_id TEXT NOT NULL REFERENCES environments (id),
  kind TEXT NOT NULL CHECK (kind IN ('product', 'stock', 'price', 'couriers')),
  key TEXT NOT NULL CHECK (length(key) BETWEEN 1 AND 40),
  value TEXT CHECK (value IS NULL OR json_valid(value)),
  fetched_at TEXT,
  failure TEXT CHECK (failure IS NULL OR failure IN ('offline', 'signed-out', 'service-error')),
  failure_message TEXT CHECK (failure_message IS NULL OR length(failure_message) <= 500),
  failed_at TEXT,
  CHECK ((value IS NULL) = (fetched_at IS NULL)),
  CHECK ((failure IS NULL) = (failed_at IS NULL)),
  CHECK (value IS NOT NULL OR failure IS NOT NULL),
  PRIMARY KEY (environment_id, kind, key)
) STRICT, WITHOUT ROWID;

CREATE TABLE batch_enrichments (
  batch_id INTEGER PRIMARY KEY REFERENCES import_batches (id),
  environment_id TEXT NOT NULL REFERENCES environments (id),
  started_at TEXT NOT NULL,
  finished_at TEXT NOT NULL,
  outcome TEXT NOT NULL CHECK (outcome IN ('complete', 'partial', 'cancelled')),
  summary TEXT NOT NULL CHECK (json_valid(summary) AND json_type(summary) = 'object')
) STRICT;
`);
}
