import { FIELDS } from '../model/field-catalogue.js';
import type { Problem } from '../model/imported-order.js';
import type { ColumnMap } from './csv-drafts.js';
import { cellValue } from './csv-drafts.js';
import { problem, quote } from './problems.js';

/**
 * Exports made for Excel write `'00123` or `'42109611000001109` so a spreadsheet keeps leading zeros and long codes:
 * there the apostrophe marks text and is not shown, but in the CSV it is part of the cell. Such a value is read as
 * written (a code, a number or a phone number refused with no word of it), so the file says so once, naming the
 * first cell. Only an apostrophe before a digit, and our own template's guarded formula cells (`'+44…`) are read
 * without it (shared/csv-formula.ts).
 */
const APOSTROPHE_DIGIT = /^'\d/;

// Fields no value of which starts with an apostrophe: numbers, codes, dates, phone and registration numbers. A
// free-text field (a name, an address, an order id, another country's postcode) may, and our own exports write such
// a value as it is.
const TEXT_CODES = new Set(['telephone', 'clinicContactNumber', 'prescriberRegistrationNumber']);
const CHECKED: readonly boolean[] = FIELDS.map((field) => field.kind !== 'text' || TEXT_CODES.has(field.column));

export class LeadingApostrophes {
  private first: { line: number; column: string; value: string } | undefined;
  private count = 0;

  /** Looks at the cells of one row that fields read. */
  note(cells: readonly string[], line: number, columns: ColumnMap, headerCells: readonly string[]): void {
    for (let field = 0; field < columns.cellOf.length; field += 1) {
      const cell = columns.cellOf[field]!;
      if (cell < 0 || !CHECKED[field]) continue;
      const raw = cells[cell];
      if (raw === undefined || !raw.includes("'")) continue;
      const value = cellValue(raw);
      if (value === undefined || !APOSTROPHE_DIGIT.test(value)) continue;
      this.count += 1;
      this.first ??= { line, column: headerCells[cell] ?? `${cell + 1}`, value };
    }
  }

  problem(file: string): Problem | undefined {
    const first = this.first;
    if (!first) return undefined;
    const more = this.count > 1 ? ` (${this.count} such cells in all)` : '';
    return problem(
      'warning',
      file,
      { row: first.line },
      'csv.leadingApostrophe',
      `Row ${first.line}, column "${first.column}", reads ${quote(first.value)}: it starts with an apostrophe, which a spreadsheet uses to keep digits as text and does not show, but in a CSV file it is part of the value, so it was read with it${more}. Remove the apostrophes from the file, or export it without them.`,
    );
  }
}
