import { fieldIndex } from '../model/field-catalogue.js';
import type { ColumnMap } from './csv-drafts.js';
import { problem, quote } from './problems.js';
import type { ImportedOrder } from '../model/imported-order.js';

/**
 * Exports put lines among and after their rows that are not orders: "Total: 3 orders", "End of report", a subtotal
 * under each clinic. Read as orders, each was an invalid order with a required-field error for nearly every column.
 * A row is taken for such a line when it is an order on its own (no other row shares its clinic and order id), names
 * no patient (surname, first name, date of birth) and no item (dm+d code, medication), and fills at most two cells:
 * nothing an order could be made of. It stays in the batch as one entry with one error (as an HL7 message that is not
 * an order does), so the preview shows it and it is never sent.
 */

const MAX_FILLED = 2;
const ORDER_FIELDS = ['surname', 'firstName', 'dateOfBirth', 'dmdCode', 'medication'].map((c) => fieldIndex(c)!);

const blank = (cell: string | undefined) => cell === undefined || cell.trim() === '';

/** The cells of the order fields that must all be blank, by cell index in a row (-1: unmapped). */
export const summaryCheckCells = (columns: ColumnMap): number[] =>
  ORDER_FIELDS.map((index) => columns.cellOf[index]!).filter((cell) => cell >= 0);

/** The filled cells' indexes when `cells` look like a summary line; undefined for a row that may be an order. */
export function summaryLine(cells: readonly string[], checkCells: readonly number[]): number[] | undefined {
  for (const at of checkCells) if (!blank(cells[at])) return undefined;
  const filled: number[] = [];
  for (let i = 0; i < cells.length; i += 1) {
    if (blank(cells[i])) continue;
    if (filled.push(i) > MAX_FILLED) return undefined;
  }
  return filled;
}

/** The entry for a summary line: no order, one error saying what the row holds and what to do. */
export function summaryEntry(
  file: string,
  line: number,
  record: string,
  cells: readonly string[],
  filled: readonly number[],
  headerCells: readonly string[],
): ImportedOrder {
  const described = filled
    .map((i) => `${headerCells[i] ? `column "${headerCells[i]}"` : `column ${i + 1}`} (${quote(cells[i]!.trim())})`)
    .join(' and ');
  return {
    clinicCode: null,
    clinicOrderId: null,
    body: {},
    valid: false,
    problems: [
      problem(
        'error',
        file,
        { row: line },
        'csv.summaryRow',
        `Row ${line} looks like a summary line, not an order: it fills only ${described}, and names no patient or item. Remove it from the file, or leave it: it is never sent.`,
      ),
    ],
    provenance: {},
    source: { file, rows: [line], records: [record] },
  };
}
