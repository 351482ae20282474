import type Database from 'better-sqlite3';

/**
 * The log's free-text search found through an index (issue #16: it read entries newest first until a page was full,
 * about a second at 745,000 entries for a rare text). `audit_search` is an FTS5 trigram index over exactly the text
 * the search matches (clinic code, clinic order id, action and details, as `AuditRepo`'s search joins them): no
 * other field, and no copy of the text (`content=''`), only which entries hold each three-character piece
 * (`detail=none`, no positions, to keep it small). A search asks it for the entries holding every piece of the text
 * and keeps those that really hold the text.
 *
 * Entries are indexed in the background, in batches, up to `audit_search_progress.indexed_through`
 * (main/core/audit/search-indexer.ts), not by a trigger: a trigram insert costs about three times the append itself,
 * which the submitter would pay on every entry, and filling the index here would hold the first start after an
 * upgrade for minutes on a large log. A search reads the index up to that mark and the few entries after it
 * directly, so it finds the same either way. Entries are never changed or deleted (the log's triggers), so
 * nothing else has to follow.
 */
export const AUDIT_SEARCH_TEXT = `lower(coalesce(clinic_code, '') || ' ' || coalesce(clinic_order_id, '') || ' ' || action || ' ' || details)`;

export function up(db: Database.Database): void {
  db.exec(`
CREATE VIRTUAL TABLE audit_search USING fts5(text, content='', tokenize='trigram', detail=none);
CREATE TABLE audit_search_progress (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  indexed_through INTEGER NOT NULL CHECK (indexed_through >= 0)
) STRICT;
INSERT INTO audit_search_progress (id, indexed_through) VALUES (1, 0);
`);
}
