import type Database from 'better-sqlite3';
import { splitDetails, type SplitDetails } from '../audit-details-split.js';

/**
 * The audit log in a compact form (issue #16 "Size": an entry was about 370 bytes, a third of a store after
 * retention). What made it large was repetition, so the same facts are kept once:
 * - action names, environment ids and key ids are kept once in `audit_names`, an entry holds their number;
 * - a details text is kept once in `audit_details` with the words the free-text search matches in it, less the
 *   values that differ from entry to entry (a latency, the service's order id…), which the entry keeps
 *   (`detail_values`; audit-details-split.ts makes the canonical text the link covers again from the two, byte for
 *   byte); entries of the same kind then share a few hundred texts;
 * - the time is a number of milliseconds (an older entry whose text would not come back exactly stays text);
 * - an entry about an order that names the order's own clinic code and clinic order id says so (`clinic_ids` 1)
 *   instead of repeating them: they are read from the order, which never changes them and is never deleted (a
 *   changed or missing order then makes its entries fail verification, as a changed entry does);
 * - the link is binary, and the previous link is not kept: it is the previous entry's, which the append trigger
 *   made sure of when each entry was written, and which every link covers (a changed order shows as a changed
 *   entry);
 * - new keyed links (scheme 3) are HMAC-SHA256 cut to its first 16 bytes (128 bits, as RFC 2104 allows), over a
 *   serialisation of their own.
 * Every old entry is copied with its link as it was (schemes 1 and 2, 32 bytes), so the whole chain still verifies:
 * the reader gives back the same seq, time text, names, details text and previous link that were hashed. The
 * triggers that keep the log append-only come back as they were, less the previous-link check, and the names and
 * details tables are append-only too (a changed name or text would change every entry using it: verification sees it).
 *
 * The free-text index is rebuilt over the new search text (no JSON keys, no state and operation words, no action
 * names: the screen filters by action), without FTS5's per-entry sizes (`columnsize=0`, nothing reads them), and
 * refilled in the background from the start (main/core/audit/search-indexer.ts); searches read the log meanwhile.
 */

/** Details keys whose words the free-text search leaves out: the same few words in nearly every entry. */
export const UNSEARCHED_DETAIL_KEYS = ['fromState', 'toState', 'operation', 'outcome', 'remoteStatus'] as const;

/** The words of a details text (`@json`) the search matches, lower-case, in the text's order. */
export const DETAILS_WORDS_SQL = `(SELECT lower(coalesce(group_concat(CASE type WHEN 'true' THEN 'true' WHEN 'false'
  THEN 'false' ELSE atom END, ' '), '')) FROM json_tree(@json)
  WHERE atom IS NOT NULL AND (typeof(key) <> 'text' OR key NOT IN (${UNSEARCHED_DETAIL_KEYS.map((key) => `'${key}'`).join(', ')})))`;

/** An entry's (`audit_entries` as `a`) clinic code or clinic order id: its own, or its order's (`clinic_ids` 1). */
export const ENTRY_CLINIC_SQL = (column: 'clinic_code' | 'clinic_order_id') =>
  `CASE a.clinic_ids WHEN 1 THEN (SELECT ${column} FROM orders WHERE id = a.order_id) ELSE a.${column} END`;

/** The words of an entry's own details values (`a.detail_values`), lower-case, in key order. */
const VALUES_WORDS_SQL = `coalesce((SELECT lower(group_concat(CASE type WHEN 'true' THEN 'true' WHEN 'false' THEN 'false'
  ELSE atom END, ' ')) FROM json_each(a.detail_values)), '')`;

/** The text the free-text search matches in an entry (`audit_entries` as `a`), as the index holds it. */
export const AUDIT_SEARCH_TEXT = `(lower(coalesce(${ENTRY_CLINIC_SQL('clinic_code')}, '') || ' ' ||
  coalesce(${ENTRY_CLINIC_SQL('clinic_order_id')}, '')) || ' ' || (SELECT words FROM audit_details WHERE id = a.details)
  || ' ' || ${VALUES_WORDS_SQL})`;

/** A stored time (milliseconds, or an older entry's text) as the ISO text the entry was hashed with. */
export const AT_TEXT_SQL = (column: string) => `CASE typeof(${column}) WHEN 'integer' THEN
  strftime('%Y-%m-%dT%H:%M:%S', ${column} / 1000, 'unixepoch') || '.' || printf('%03d', ${column} % 1000) || 'Z'
  ELSE ${column} END`;

/** An ISO time text as milliseconds (to be checked against `AT_TEXT_SQL` before it replaces the text). */
export const AT_AS_NUMBER_SQL = (column: string) =>
  `CAST(round((julianday(${column}) - 2440587.5) * 86400000.0) AS INTEGER)`;
const AT_AS_NUMBER = AT_AS_NUMBER_SQL('at');

/** The log's tables: neither UPDATE nor DELETE (a name or text changed would change every entry using it). */
export const APPEND_ONLY_TABLES = ['audit_entries', 'audit_names', 'audit_details'] as const;

const appendOnly = (table: string) => `CREATE TRIGGER ${table}_no_update BEFORE UPDATE ON ${table}
BEGIN
  SELECT RAISE(ABORT, 'audit entries are append-only');
END;
CREATE TRIGGER ${table}_no_delete BEFORE DELETE ON ${table}
BEGIN
  SELECT RAISE(ABORT, 'audit entries are append-only');
END;`;

export function up(db: Database.Database): void {
  db.exec(`
DROP TRIGGER audit_entries_no_update;
DROP TRIGGER audit_entries_no_delete;
DROP TRIGGER audit_entries_append_at_end;

CREATE TABLE audit_names (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE CHECK (length(name) BETWEEN 1 AND 200)
) STRICT;
CREATE TABLE audit_details (
  id INTEGER PRIMARY KEY,
  json TEXT NOT NULL CHECK (json_valid(json) AND json_type(json) = 'object'),
  own_keys TEXT NOT NULL DEFAULT '',
  words TEXT NOT NULL,
  UNIQUE (json, own_keys)
) STRICT;

INSERT INTO audit_names (name)
  SELECT action FROM audit_entries
  UNION SELECT environment_id FROM audit_entries WHERE environment_id IS NOT NULL
  UNION SELECT key_id FROM audit_entries WHERE key_id IS NOT NULL;
`);
  // Each old details text split as the append splits new ones (kept whole where it would not come back exactly).
  let last: { text: string; split: SplitDetails } | undefined;
  const split = (text: string): SplitDetails => {
    if (last?.text !== text) last = { text, split: splitDetails(text) };
    return last.split;
  };
  db.function('rx_details_common', { deterministic: true }, (text) => split(String(text)).common);
  db.function('rx_details_keys', { deterministic: true }, (text) => split(String(text)).ownKeys);
  db.function('rx_details_values', { deterministic: true }, (text) => split(String(text)).values);
  const details = db.prepare(
    `INSERT INTO audit_details (json, own_keys, words) VALUES (@json, @ownKeys, ${DETAILS_WORDS_SQL})`,
  );
  const shared = db.prepare<[], { json: string; ownKeys: string }>(
    'SELECT DISTINCT rx_details_common(details) AS json, rx_details_keys(details) AS ownKeys FROM audit_entries',
  );
  for (const row of shared.all()) details.run(row);
  db.exec(`
CREATE TABLE audit_entries_compact (
  seq INTEGER PRIMARY KEY CHECK (seq >= 1),
  at ANY NOT NULL CHECK (typeof(at) IN ('integer', 'text')),
  actor INTEGER NOT NULL CHECK (actor IN (0, 1, 2)),
  action INTEGER NOT NULL REFERENCES audit_names (id),
  environment INTEGER REFERENCES audit_names (id),
  batch_id INTEGER,
  order_id INTEGER,
  clinic_code TEXT,
  clinic_order_id TEXT,
  clinic_ids INTEGER NOT NULL DEFAULT 0 CHECK (clinic_ids IN (0, 1)),
  details INTEGER NOT NULL REFERENCES audit_details (id),
  detail_values TEXT CHECK (detail_values IS NULL OR (json_valid(detail_values) AND json_type(detail_values) = 'array')),
  link BLOB NOT NULL,
  link_scheme INTEGER NOT NULL CHECK (link_scheme IN (1, 2, 3)),
  key INTEGER REFERENCES audit_names (id),
  CHECK ((link_scheme = 1) = (key IS NULL)),
  CHECK (clinic_ids = 0 OR (order_id IS NOT NULL AND clinic_code IS NULL AND clinic_order_id IS NULL)),
  CHECK (length(link) = CASE link_scheme WHEN 3 THEN 16 ELSE 32 END)
) STRICT;

INSERT INTO audit_entries_compact (seq, at, actor, action, environment, batch_id, order_id, clinic_code, clinic_order_id,
  clinic_ids, details, detail_values, link, link_scheme, key)
SELECT seq,
  CASE WHEN ${AT_TEXT_SQL(AT_AS_NUMBER)} = at THEN ${AT_AS_NUMBER} ELSE at END,
  CASE actor WHEN 'user' THEN 0 WHEN 'submitter' THEN 1 ELSE 2 END,
  (SELECT id FROM audit_names WHERE name = action),
  (SELECT id FROM audit_names WHERE name = environment_id),
  batch_id, order_id,
  CASE WHEN own THEN NULL ELSE clinic_code END, CASE WHEN own THEN NULL ELSE clinic_order_id END, own,
  (SELECT id FROM audit_details WHERE json = rx_details_common(details) AND own_keys = rx_details_keys(details)),
  rx_details_values(details),
  unhex(hash), link_scheme,
  (SELECT id FROM audit_names WHERE name = key_id)
FROM (SELECT e.*, coalesce(e.clinic_code = o.clinic_code AND e.clinic_order_id = o.clinic_order_id, 0) AS own
  FROM audit_entries e LEFT JOIN orders o ON o.id = e.order_id)
ORDER BY seq;

DROP TABLE audit_entries;
ALTER TABLE audit_entries_compact RENAME TO audit_entries;
CREATE INDEX audit_entries_by_order ON audit_entries (order_id) WHERE order_id IS NOT NULL;
CREATE INDEX audit_entries_by_action ON audit_entries (action, seq);

${APPEND_ONLY_TABLES.map(appendOnly).join('\n')}
CREATE TRIGGER audit_entries_append_at_end BEFORE INSERT ON audit_entries
WHEN NEW.seq IS NOT COALESCE((SELECT max(seq) FROM audit_entries), 0) + 1
BEGIN
  SELECT RAISE(ABORT, 'audit entries are appended at the end of the chain');
END;

DROP TABLE audit_search;
CREATE VIRTUAL TABLE audit_search USING fts5(text, content='', tokenize='trigram', detail=none, columnsize=0);
UPDATE audit_search_progress SET indexed_through = 0;
`);
}
