import type { StagedOrderSource } from './staged-order-types.js';

/**
 * The compacted form of a staged row (retention, retention-repo.ts): what is left of an accepted staged order once
 * its copies are dropped, and how readers turn it back into the staged order they read before compaction.
 *
 * A compacted row (`compacted_at` set, to the day it was compacted) stores nothing it can be told from elsewhere:
 * - `body`, `problems` and `provenance` are empty texts; they read as `{}`, `[]` and no provenance, as the older
 *   compacted form (`'{}'`, `'[]'`, `'{"v":2}'`) read;
 * - `clinic_code` is NULL when it is its order's (the row's `order_id`): read from the order. `clinic_order_id` stays,
 *   since an order finds the staged row it was accepted from through `staged_orders_by_identity` by it;
 * - `source` keeps only the CSV lines (`rows`) or the HL7 message number (`message`), and the file name only when it
 *   is not the batch's (`import_batches.source_file_name`, which a reader takes then).
 * Rows compacted by earlier versions (the full identity, the file in every row) read through the same code; retention
 * rewrites them in this form when it walks their batch again (a batch with an open order).
 */

/** SET clause of the compaction, over `temp.retention_rows` (copies of the rows); `@day` is today, YYYY-MM-DD. */
export const COMPACT_ROW_SET = `body = '', problems = '', provenance = '',
  clinic_code = CASE WHEN clinic_code = (SELECT o.clinic_code FROM main.orders o WHERE o.id = retention_rows.order_id)
    THEN NULL ELSE clinic_code END,
  source = CASE
    WHEN json_extract(source, '$.file') = (SELECT b.source_file_name FROM main.import_batches b
      WHERE b.id = retention_rows.batch_id)
    THEN json_remove(source, '$.records', '$.hl7', '$.file')
    ELSE json_remove(source, '$.records', '$.hl7') END,
  compacted_at = coalesce(substr(compacted_at, 1, 10), @day)`;

/** Rows of a window in the older compacted form (their provenance is not empty), for `COMPACT_ROW_SET` again. */
export const OLDER_COMPACTED_WHERE = `compacted_at IS NOT NULL AND provenance <> ''`;

/** A staged order with a problem (an error or a warning): not `[]`, nor a compacted row's empty text. */
export const HAS_PROBLEMS = `problems NOT IN ('[]', '')`;

/**
 * Columns a reader of `staged_orders` (unaliased) selects so `expandCompacted` can fill a compacted row in: the
 * clinic code (the order's when the row leaves it to the order) and the batch's file name (for a compacted row).
 */
export const COMPACTED_FILL_COLUMNS = `CASE WHEN compacted_at IS NOT NULL AND clinic_code IS NULL AND order_id IS NOT NULL
    THEN (SELECT o.clinic_code FROM orders o WHERE o.id = staged_orders.order_id) ELSE clinic_code END AS clinicCode,
  CASE WHEN compacted_at IS NOT NULL
    THEN (SELECT b.source_file_name FROM import_batches b WHERE b.id = staged_orders.batch_id) END AS batchFile`;

/** What a row read with `COMPACTED_FILL_COLUMNS` holds for `expandCompacted`. */
export interface CompactableRow {
  body: string;
  problems: string;
  provenance: string;
  source: string;
  /** The batch's file name, for a compacted row only (null otherwise). */
  batchFile: string | null;
}

/** The texts of a row as a row that kept them reads: the compacted form's empty texts and its file filled in. */
export function expandCompacted(row: CompactableRow): {
  body: string;
  problems: string;
  provenance: string | null;
  source: StagedOrderSource;
} {
  const source = JSON.parse(row.source) as Partial<StagedOrderSource>;
  if (row.batchFile === null) return { ...row, source: source as StagedOrderSource };
  return {
    body: row.body === '' ? '{}' : row.body,
    problems: row.problems === '' ? '[]' : row.problems,
    // null: no provenance (what the older form's `{"v":2}` decodes to).
    provenance: row.provenance === '' ? null : row.provenance,
    source: source.file === undefined ? { file: row.batchFile, ...source } : (source as StagedOrderSource),
  };
}
