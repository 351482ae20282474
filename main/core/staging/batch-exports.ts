import { csvRecord, neutraliseCell, quoteField, restoreCell, hasFormulaStart } from '../../../shared/csv-formula.js';
import type { CreateWithClinicV1Input } from '../../../shared/orders.js';
import { parseBatch } from '../importing/csv-records.js';
import { FIELDS, TEMPLATE_COLUMNS } from '../model/field-catalogue.js';
import { templateRows, writeTemplateCsv } from '../importing/template-csv.js';
import { isNotAnOrder, type Problem } from '../model/imported-order.js';
import { convertValue } from '../importing/value-conversion.js';
import type { BatchRecord } from '../store/batches-repo.js';
import type { StagedOrder } from '../store/staged-orders-repo.js';
import type { Store } from '../store/store.js';
import { stagedBodyOrSent } from './compacted-body.js';

/**
 * CSV out of a staged batch, written a page of orders at a time (a 50,000-order batch never becomes one array):
 * - the error export: for a CSV batch, the invalid orders' original records exactly as they were in the file,
 *   under the original header, each with an `errors` cell; fixed in a spreadsheet, it imports again with the same
 *   mapping (staging offers saved profiles under the header-plus-`errors` fingerprint too). HL7 and JSON batches
 *   have no rows to give back, so their invalid orders come in our template, with the same `errors` column.
 * - the template export: every order of the batch in our CSV template (re-imports to the same bodies; an accepted
 *   v1 order whose staged copy retention dropped, from the body it was sent with).
 * Lines end in CRLF, as spreadsheets write them. No cell of either starts with a formula character (CSV injection,
 * shared/csv-formula.ts): the template's cells are neutralised as they are written; in the error export a record of
 * the file is given back exactly unless a cell of it starts with one (or its quoting is broken), and then it is
 * written again cell by cell, each dangerous cell as the importer read it, neutralised (so it reads back the same).
 */

export const ERRORS_COLUMN = 'errors';
const PAGE = 500;
const CRLF = '\r\n';

function* pagesOf(
  store: Store,
  batchId: number,
  filter: { state?: 'staged' | 'accepted'; valid?: boolean } = {},
): Generator<StagedOrder[]> {
  for (let after = 0; ;) {
    const page = store.stagedOrders.after(batchId, after, PAGE, filter);
    if (page.length === 0) return;
    yield page;
    after = page[page.length - 1]!.position;
  }
}

/** How much an export wrote: orders, and CSV records (rows) under the header. */
export interface ExportCounts {
  orders: number;
  rows: number;
  /** The error export's entries left out as no order at all (a message of another type…): no fix mends them. */
  notOrders?: number;
}

/** The batch's invalid orders a fix can mend, a page at a time; the entries that are no order at all are counted. */
function* fixablePagesOf(store: Store, batchId: number, counts: ExportCounts): Generator<StagedOrder[]> {
  counts.notOrders = 0;
  for (const page of pagesOf(store, batchId, { state: 'staged', valid: false })) {
    const fixable = page.filter((order) => !isNotAnOrder(order.problems));
    counts.notOrders += page.length - fixable.length;
    if (fixable.length > 0) yield fixable;
  }
}

const errorText = (problems: readonly Problem[]) => problems.map((problem) => problem.text).join(' | ');

/** The order's errors by the record (line) they belong to; errors about the order as a whole go on its first. */
function errorsByRow(order: StagedOrder): Map<number, Problem[]> {
  const rows = order.source.rows ?? [];
  const byRow = new Map<number, Problem[]>(rows.map((row) => [row, []]));
  for (const problem of order.problems) {
    if (problem.severity !== 'error') continue;
    const row = problem.row !== undefined && byRow.has(problem.row) ? problem.row : rows[0]!;
    byRow.get(row)!.push(problem);
  }
  return byRow;
}

interface StoredHeader {
  headerText?: string;
  delimiter?: string;
}

/**
 * A record of the imported file (or its header) as the error export writes it: exactly as it was when no cell starts
 * with a formula character and its quoting is sound; otherwise cell by cell, each dangerous cell written as the
 * importer read it (trimmed, restored) and neutralised, so that importing the export reads the same values, and
 * every other cell as it was. A record with broken quoting is written as papaparse read it (the importer took none
 * of its values; its `errors` cell says what to fix).
 */
function safeRecord(record: string, delimiter: string): string {
  const { rows, badQuotes } = parseBatch({ records: [record], lines: [1], text: record, newline: '\n' }, delimiter);
  const cells = rows[0] ?? [record];
  if (!badQuotes.has(0) && !cells.some(hasFormulaStart)) return record;
  return cells
    .map((cell) =>
      hasFormulaStart(cell)
        ? quoteField(neutraliseCell(restoreCell(cell.trim())), delimiter, true)
        : quoteField(cell, delimiter),
    )
    .join(delimiter);
}

/** The `errors` cell: always quoted, neutralised like any other. */
const errorsCell = (problems: readonly Problem[], delimiter: string) =>
  quoteField(neutraliseCell(errorText(problems)), delimiter, true);

/**
 * The error CSV of a batch, a chunk of text at a time; `counts` is filled as it goes. It holds the invalid orders a
 * fix can mend: an entry that is no order at all (an ADT message among the orders) is left out and counted.
 */
export function* errorCsv(
  store: Store,
  batch: BatchRecord,
  counts: ExportCounts = { orders: 0, rows: 0 },
): Generator<string> {
  const report = (batch.report ?? {}) as StoredHeader;
  if (batch.kind === 'csv' && report.headerText !== undefined && report.delimiter !== undefined) {
    const delimiter = report.delimiter;
    yield `${safeRecord(report.headerText, delimiter)}${delimiter}${ERRORS_COLUMN}${CRLF}`;
    for (const page of fixablePagesOf(store, batch.id, counts)) {
      let chunk = '';
      for (const order of page) {
        const records = order.source.records ?? [];
        const rows = order.source.rows ?? [];
        const byRow = errorsByRow(order);
        records.forEach((record, index) => {
          const errors = byRow.get(rows[index] ?? Number.NaN) ?? [];
          chunk += `${safeRecord(record, delimiter)}${delimiter}${errorsCell(errors, delimiter)}${CRLF}`;
          counts.rows += 1;
        });
        counts.orders += 1;
      }
      yield chunk;
    }
    return;
  }
  yield `${csvRecord([...FIELDS.map((field) => field.column), ERRORS_COLUMN])}${CRLF}`;
  for (const page of fixablePagesOf(store, batch.id, counts)) {
    yield page.map((order) => templateRowsWithErrors(order, counts)).join('');
    counts.orders += page.length;
  }
}

/** The entries of a batch that are no order at all, one line each: its message and why (a watched folder's note). */
export function* notOrderLines(store: Store, batchId: number): Generator<string> {
  for (const page of pagesOf(store, batchId, { state: 'staged', valid: false })) {
    let chunk = '';
    for (const order of page) {
      if (!isNotAnOrder(order.problems)) continue;
      const where = order.source.message !== undefined ? `message ${order.source.message}` : `entry ${order.position}`;
      const errors = order.problems.filter((problem) => problem.severity === 'error');
      chunk += `${where}: ${errorText(errors)}\n`;
    }
    if (chunk !== '') yield chunk;
  }
}

/** One order in our template with its errors on its first row (items beyond the first carry none). */
function templateRowsWithErrors(order: StagedOrder, counts: ExportCounts): string {
  const errors = order.problems.filter((problem) => problem.severity === 'error');
  return templateRows([order.body as CreateWithClinicV1Input])
    .map((cells, index) => {
      counts.rows += 1;
      return `${csvRecord(cells)},${index === 0 ? errorsCell(errors, ',') : ''}${CRLF}`;
    })
    .join('');
}

/** Every order of the batch (staged or accepted) in our CSV template, a page at a time; `counts` as it goes. */
export function* templateCsv(
  store: Store,
  batchId: number,
  counts: ExportCounts = { orders: 0, rows: 0 },
): Generator<string> {
  yield `${csvRecord(TEMPLATE_COLUMNS)}${CRLF}`;
  // An accepted v1 order whose staged copy retention dropped is written from the body it was sent with.
  const route = store.batches.get(batchId)?.route ?? 'v1';
  for (const page of pagesOf(store, batchId)) {
    const rows = templateRows(page.map((order) => stagedBodyOrSent(store, order, route) as CreateWithClinicV1Input));
    counts.orders += page.length;
    counts.rows += rows.length;
    yield rows.map((cells) => `${csvRecord(cells)}${CRLF}`).join('');
  }
}

/** The example download: one order in our template, built from the catalogue's example values. */
export function exampleTemplateCsv(options: { bom?: boolean } = {}): string {
  const body: Record<string, unknown> = {};
  const item: Record<string, unknown> = {};
  const today = new Date();
  for (const field of FIELDS) {
    if (field.example === '') continue;
    const converted = convertValue(field.example, field.kind, 'iso', today);
    if (!converted.ok) continue;
    const parts = field.path.split('.');
    if (field.level === 'item') item[parts.at(-1)!] = converted.value;
    else if (parts.length === 1) body[parts[0]!] = converted.value;
    else ((body[parts[0]!] ??= {}) as Record<string, unknown>)[parts[1]!] = converted.value;
  }
  body.prescribedItems = [item];
  return writeTemplateCsv([body as unknown as CreateWithClinicV1Input], options);
}
