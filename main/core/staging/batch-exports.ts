import Papa from 'papaparse';
import type { CreateWithClinicV1Input } from '../../../shared/orders.js';
import { FIELDS } from '../importing/field-catalogue.js';
import { writeTemplateCsv } from '../importing/template-csv.js';
import type { Problem } from '../importing/types.js';
import { convertValue } from '../importing/value-conversion.js';
import type { BatchRecord } from '../store/batches-repo.js';
import type { StagedOrder } from '../store/staged-orders-repo.js';
import type { Store } from '../store/store.js';

/**
 * CSV out of a staged batch, written a page of orders at a time (a 50,000-order batch never becomes one array):
 * - the error export: for a CSV batch, the invalid orders' original records exactly as they were in the file,
 *   under the original header, each with an `errors` cell; fixed in a spreadsheet, it imports again with the same
 *   mapping (staging offers saved profiles under the header-plus-`errors` fingerprint too). HL7 and JSON batches
 *   have no rows to give back, so their invalid orders come in our template, with the same `errors` column.
 * - the template export: every order of the batch in our CSV template (re-imports to the same bodies).
 * Lines end in CRLF, as spreadsheets write them.
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

/** A cell quoted the RFC 4180 way, whatever the delimiter. */
const quoted = (text: string) => `"${text.replace(/"/g, '""')}"`;

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

/** The error CSV of a batch, a chunk of text at a time; `counts.orders` is filled as it goes. */
export function* errorCsv(
  store: Store,
  batch: BatchRecord,
  counts: { orders: number } = { orders: 0 },
): Generator<string> {
  const report = (batch.report ?? {}) as StoredHeader;
  if (batch.kind === 'csv' && report.headerText !== undefined && report.delimiter !== undefined) {
    const delimiter = report.delimiter;
    yield `${report.headerText}${delimiter}${ERRORS_COLUMN}${CRLF}`;
    for (const page of pagesOf(store, batch.id, { state: 'staged', valid: false })) {
      let chunk = '';
      for (const order of page) {
        const records = order.source.records ?? [];
        const rows = order.source.rows ?? [];
        const byRow = errorsByRow(order);
        records.forEach((record, index) => {
          const errors = byRow.get(rows[index] ?? Number.NaN) ?? [];
          chunk += `${record}${delimiter}${quoted(errorText(errors))}${CRLF}`;
        });
        counts.orders += 1;
      }
      yield chunk;
    }
    return;
  }
  yield `${templateHeader(',')}${CRLF}`;
  for (const page of pagesOf(store, batch.id, { state: 'staged', valid: false })) {
    yield page.map((order) => templateRowsWithErrors(order, ',')).join('');
    counts.orders += page.length;
  }
}

function templateHeader(delimiter: string): string {
  return [...FIELDS.map((field) => field.column), ERRORS_COLUMN].join(delimiter);
}

/** One order in our template with its errors on its first row (items beyond the first carry none). */
function templateRowsWithErrors(order: StagedOrder, delimiter: string): string {
  const csv = writeTemplateCsv([order.body as CreateWithClinicV1Input]);
  const rows = Papa.parse<string[]>(csv, { skipEmptyLines: true }).data.slice(1);
  const errors = errorText(order.problems.filter((problem) => problem.severity === 'error'));
  return Papa.unparse(
    rows.map((cells, index) => [...cells, index === 0 ? errors : '']),
    { delimiter, newline: CRLF, quotes: false },
  ).concat(CRLF);
}

/** Every order of the batch (staged or accepted) in our CSV template, a page at a time. */
export function* templateCsv(store: Store, batchId: number): Generator<string> {
  let first = true;
  for (const page of pagesOf(store, batchId)) {
    const csv = writeTemplateCsv(page.map((order) => order.body as CreateWithClinicV1Input));
    yield first ? csv : csv.slice(csv.indexOf('\n') + 1);
    first = false;
  }
  if (first) yield writeTemplateCsv([]);
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
