import { fieldIndex } from '../model/field-catalogue.js';
import type { ColumnMap } from './csv-drafts.js';
import { problem, quote } from './problems.js';
import type { ImportedOrder } from '../model/imported-order.js';

/**
 * Exports put lines among and after their rows that are not orders: "Total: 3 orders", "End of report", a subtotal
 * under each clinic, a page footer, and where two exports were joined, the header again. Read as orders, each was an
 * invalid order with a required-field error for nearly every column. A row is taken for a summary line when it is an
 * order on its own (no other row shares its clinic and order id: a row of a real order is never taken out of it), has
 * no surname, date of birth, dm+d code or medication, and fills at most a few cells (2, up to 4 in a header of 16
 * columns or more): nothing an order could be made of. A row that is the header again is said as such. Either stays
 * in the batch as one entry with one error (as an HL7 message that is not an order does), so the preview shows it and
 * it is never sent.
 */

const ORDER_FIELDS = ['surname', 'dateOfBirth', 'dmdCode', 'medication'].map((c) => fieldIndex(c)!);

/** How many cells a summary line may fill: 2, or a quarter of the header's columns up to 4. */
export const maxSummaryCells = (headerCells: readonly string[]): number =>
  Math.max(2, Math.min(4, Math.floor(headerCells.length / 4)));

const blank = (cell: string | undefined) => cell === undefined || cell.trim() === '';

/** The cells of the order fields that must all be blank, by cell index in a row (-1: unmapped). */
export const summaryCheckCells = (columns: ColumnMap): number[] =>
  ORDER_FIELDS.map((index) => columns.cellOf[index]!).filter((cell) => cell >= 0);

/** The filled cells' indexes when `cells` look like a summary line; undefined for a row that may be an order. */
export function summaryLine(
  cells: readonly string[],
  checkCells: readonly number[],
  maxFilled: number,
): number[] | undefined {
  for (const at of checkCells) if (!blank(cells[at])) return undefined;
  const filled: number[] = [];
  for (let i = 0; i < cells.length; i += 1) {
    if (blank(cells[i])) continue;
    if (filled.push(i) > maxFilled) return undefined;
  }
  return filled;
}

/** Whether a row is the header row again (its cells as the header's, spaces around them aside). */
export function repeatsHeader(cells: readonly string[], headerCells: readonly string[]): boolean {
  if (cells.length === 0 || cells[0]!.trim() !== headerCells[0]) return false;
  let i = 1;
  while (i < headerCells.length && (cells[i] ?? '').trim() === headerCells[i]) i += 1;
  return i === headerCells.length && cells.slice(i).every(blank);
}

const entry = (file: string, line: number, record: string, code: string, text: string): ImportedOrder => ({
  clinicCode: null,
  clinicOrderId: null,
  body: {},
  valid: false,
  problems: [problem('error', file, { row: line }, code, text)],
  provenance: {},
  source: { file, rows: [line], records: [record] },
});

const LEAVE_IT = 'Remove it from the file, or leave it: it is never sent.';

/** The entry for the header row met again. */
export const repeatedHeaderEntry = (file: string, line: number, record: string): ImportedOrder =>
  entry(
    file,
    line,
    record,
    'csv.headerRepeated',
    `Row ${line} repeats the header row (were two files joined?), so it is not an order. ${LEAVE_IT}`,
  );

/** The entry for a summary line: no order, one error saying what the row holds and what to do. */
export function summaryEntry(
  file: string,
  line: number,
  record: string,
  cells: readonly string[],
  filled: readonly number[],
  headerCells: readonly string[],
): ImportedOrder {
  const named = filled.map(
    (i) => `${headerCells[i] ? `column "${headerCells[i]}"` : `column ${i + 1}`} (${quote(cells[i]!.trim())})`,
  );
  const described = named.length === 1 ? named[0]! : `${named.slice(0, -1).join(', ')} and ${named.at(-1)}`;
  return entry(
    file,
    line,
    record,
    'csv.summaryRow',
    `Row ${line} looks like a summary line, not an order: it fills only ${described}, with no patient's surname or date of birth and no item. ${LEAVE_IT}`,
  );
}
