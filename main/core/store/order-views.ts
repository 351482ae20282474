import type Database from 'better-sqlite3';
import type { BatchKind } from './order-state.js';

/**
 * The order detail view's read model (part of `store.orders`): where an order came from (its batch and the staged
 * order it was accepted from) and, on request only, the original text. Reads only.
 */

/** An order's batch and, when it went through staging, the staged order it was accepted from. */
export interface OrderOrigin {
  batchId: number;
  fileName: string;
  kind: BatchKind;
  importedAt: string;
  staged: {
    /** 1-based among the file's orders. */
    position: number;
    /** CSV: physical lines of the order's records. */
    rows: number[];
    /** HL7: 1-based message index. */
    message: number | null;
    /** HL7: the message's MSH segment (no patient data), for its control id. */
    hl7Header: string | null;
    /** Whether the CSV records or the HL7 message are kept (`source`). */
    sourceKept: boolean;
    /** Edited in the app before it was accepted. */
    edited: boolean;
  } | null;
}

export type OrderSourceText =
  | {
      kind: 'csv';
      fileName: string;
      header: { line: number | null; text: string } | null;
      records: Array<{ line: number | null; text: string }>;
    }
  | { kind: 'hl7'; fileName: string; message: number | null; text: string };

interface OriginRow {
  batchId: number;
  fileName: string;
  kind: BatchKind;
  importedAt: string;
  stagedId: number | null;
  position: number | null;
  editedAt: string | null;
  rows: string | null;
  message: number | null;
  sourceKept: number | null;
  hl7Header: string | null;
}

interface SourceRow {
  fileName: string;
  kind: BatchKind;
  headerRow: unknown;
  headerText: unknown;
  source: string;
}

// The staged order an order was accepted from: same batch and identity (staged_orders_by_identity), and pointing at
// it; HL7 cancel messages point at the order they cancelled, hence order_control. A compacted row may leave its
// clinic code to the order (compacted-staged-rows.ts): a second probe of the index finds it.
const identity = (clinicCode: string) => `SELECT t.id FROM staged_orders t
    WHERE t.batch_id = o.batch_id AND t.clinic_code ${clinicCode} AND t.clinic_order_id = o.clinic_order_id
      AND t.order_id = o.id AND t.order_control = 'NW'`;
const STAGED_OF = `LEFT JOIN staged_orders s ON s.id = (SELECT min(id) FROM (
    ${identity('= o.clinic_code')} UNION ALL ${identity('IS NULL AND t.compacted_at IS NOT NULL')}))`;

/** Where an order came from (`origin`); only the MSH segment of a kept HL7 message: the rest is patient data. */
export const ORDER_ORIGIN_SQL = `
  SELECT b.id AS batchId, b.source_file_name AS fileName, b.kind, b.created_at AS importedAt,
    s.id AS stagedId, s.position, s.edited_at AS editedAt, json_extract(s.source, '$.rows') AS rows,
    json_extract(s.source, '$.message') AS message,
    json_type(s.source, '$.records') IS NOT NULL OR json_type(s.source, '$.hl7') IS NOT NULL AS sourceKept,
    substr(json_extract(s.source, '$.hl7'), 1,
      instr(json_extract(s.source, '$.hl7') || char(13), char(13)) - 1) AS hl7Header
  FROM orders o JOIN import_batches b ON b.id = o.batch_id ${STAGED_OF}
  WHERE o.id = ?`;

export class OrderViews {
  readonly #origin: Database.Statement<[number], OriginRow>;
  readonly #source: Database.Statement<[number], SourceRow>;

  constructor(db: Database.Database) {
    this.#origin = db.prepare(ORDER_ORIGIN_SQL);
    this.#source = db.prepare(`
      SELECT b.source_file_name AS fileName, b.kind, json_extract(b.report, '$.headerRow') AS headerRow,
        json_extract(b.report, '$.headerText') AS headerText, s.source
      FROM orders o JOIN import_batches b ON b.id = o.batch_id ${STAGED_OF}
      WHERE o.id = ? AND s.id IS NOT NULL`);
  }

  /**
   * Where an order came from: its batch's file, and the staged order it was accepted from (CSV lines, HL7 message
   * and its MSH segment, whether the original text is kept). Undefined when there is no such order.
   */
  origin(orderId: number): OrderOrigin | undefined {
    const row = this.#origin.get(orderId);
    if (!row) return undefined;
    const staged =
      row.stagedId === null
        ? null
        : {
            position: row.position ?? 0,
            rows: row.rows === null ? [] : (JSON.parse(row.rows) as number[]),
            message: row.message,
            hl7Header: row.hl7Header || null,
            sourceKept: row.sourceKept === 1,
            edited: row.editedAt !== null,
          };
    return { batchId: row.batchId, fileName: row.fileName, kind: row.kind, importedAt: row.importedAt, staged };
  }

  /**
   * The original text an order came from (patient data: for the detail view on request only): the CSV records
   * with their lines and the file's header, or the HL7 message. Undefined when none is kept.
   */
  source(orderId: number): OrderSourceText | undefined {
    const row = this.#source.get(orderId);
    if (!row) return undefined;
    const source = JSON.parse(row.source) as { rows?: number[]; records?: string[]; message?: number; hl7?: string };
    if (source.hl7 !== undefined) {
      return { kind: 'hl7', fileName: row.fileName, message: source.message ?? null, text: source.hl7 };
    }
    if (source.records !== undefined) {
      return {
        kind: 'csv',
        fileName: row.fileName,
        header:
          typeof row.headerText === 'string'
            ? { line: typeof row.headerRow === 'number' ? row.headerRow : null, text: row.headerText }
            : null,
        records: source.records.map((text, index) => ({ line: source.rows?.[index] ?? null, text })),
      };
    }
    return undefined;
  }
}
