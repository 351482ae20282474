import { restoreCell } from '../../../shared/csv-formula.js';
import { FIELDS, ITEM_FIELD_INDEXES, ORDER_FIELD_INDEXES, describePath, fieldIndex } from './field-catalogue.js';
import { normaliseHeader, type MappingProfile } from './mapping-profile.js';
import type { CellSet, OrderCells } from './order-builder.js';
import { describeSource, problem, quote } from './problems.js';
import type { Problem, Provenance } from './types.js';

/**
 * The CSV side of an order before it is built: which cell feeds which field, and a compact draft per order that
 * collects its rows (order values from the first row that has them, one item per row, and every disagreement).
 */

export interface ColumnMap {
  /** By field index: the cell index in a row, or -1 when the field is not mapped. */
  cellOf: number[];
  /** Cell indexes of the order-level fields, by position in ORDER_FIELD_INDEXES; same for items. */
  orderCells: number[];
  itemCells: number[];
  problems: Problem[];
}

/** Resolves a profile's `columns` against the header row; warns about mapped headers the file lacks. */
export function mapColumns(
  profile: MappingProfile,
  headerCells: string[],
  headerLine: number,
  file: string,
  warnMissing: boolean,
): ColumnMap {
  const problems: Problem[] = [];
  const cellIndex = new Map<string, number>();
  headerCells.forEach((cell, i) => {
    const key = normaliseHeader(cell);
    if (key && !cellIndex.has(key)) cellIndex.set(key, i);
  });
  const cellOf: number[] = FIELDS.map(() => -1);
  const unknown: string[] = [];
  for (const [key, headerText] of Object.entries(profile.columns)) {
    const index = fieldIndex(key);
    if (index === undefined) {
      unknown.push(key);
      continue;
    }
    const at = cellIndex.get(normaliseHeader(headerText));
    if (at !== undefined) cellOf[index] = at;
    else if (warnMissing) {
      problems.push(
        problem(
          'warning',
          file,
          { row: headerLine },
          'profile.missingColumn',
          `The profile maps ${FIELDS[index]!.label} to the column "${headerText}", but the file has no such column.`,
        ),
      );
    }
  }
  if (unknown.length > 0) {
    problems.push(
      problem(
        'warning',
        file,
        {},
        'profile.unknownField',
        `The profile maps ${unknown.map((c) => `"${c}"`).join(', ')}, which are not order fields; ignored.`,
      ),
    );
  }
  return {
    cellOf,
    orderCells: ORDER_FIELD_INDEXES.map((index) => cellOf[index]!),
    itemCells: ITEM_FIELD_INDEXES.map((index) => cellOf[index]!),
    problems,
  };
}

/** A cell's value: trimmed, then restored (shared/csv-formula.ts); undefined when unmapped or blank. */
export function cellText(cells: string[], at: number): string | undefined {
  if (at < 0) return undefined;
  const raw = cells[at];
  if (raw === undefined || raw === '') return undefined;
  return cellValue(raw);
}

/**
 * What the importer reads from a CSV cell's text: trimmed, then with the apostrophe of a neutralised formula cell
 * taken off (`'-0161 496 0000` → `-0161 496 0000`, `''=x` → `'=x`), undefined when blank. Restoring after trimming
 * keeps a protected leading tab or line break (`'\tx` → `\tx`), so what the app wrote reads back exactly.
 */
export function cellValue(raw: string): string | undefined {
  const text = raw.trim();
  return text === '' ? undefined : restoreCell(text);
}

interface Disagreement {
  /** Field index. */
  field: number;
  line: number;
  value: string;
}

export interface OrderDraft {
  /** Order-level values by field index (the form buildOrder reads, so nothing is copied). */
  values: (string | undefined)[];
  /** The order's first row: every value came from it unless `laterLines` (by field index) says otherwise. */
  firstLine: number;
  laterLines?: Map<number, number>;
  /** Item values by field index. */
  items: { line: number; values: (string | undefined)[] }[];
  rows: number[];
  records: string[];
  disagreements?: Disagreement[];
  badQuotes?: number[];
}

/** Adds one row to a draft (a new one when `draft` is undefined) and returns the draft. */
export function addRow(
  draft: OrderDraft | undefined,
  columns: ColumnMap,
  cells: string[],
  line: number,
  record: string,
  badQuotes: boolean,
): OrderDraft {
  const { orderCells, itemCells } = columns;
  if (badQuotes) {
    // The cells of a row with broken quoting cannot be trusted: keep the row (its order is blocked until it is
    // fixed) but take none of its values.
    draft ??= {
      values: new Array<string | undefined>(FIELDS.length),
      firstLine: line,
      items: [],
      rows: [],
      records: [],
    };
    (draft.badQuotes ??= []).push(line);
  } else if (!draft) {
    const values = new Array<string | undefined>(FIELDS.length);
    for (let i = 0; i < orderCells.length; i += 1) values[ORDER_FIELD_INDEXES[i]!] = cellText(cells, orderCells[i]!);
    draft = { values, firstLine: line, items: [], rows: [], records: [] };
  } else {
    // Compared in place: rows of one order mostly repeat the same values.
    const values = draft.values;
    for (let i = 0; i < orderCells.length; i += 1) {
      const value = cellText(cells, orderCells[i]!);
      if (value === undefined) continue;
      const field = ORDER_FIELD_INDEXES[i]!;
      const current = values[field];
      if (current === undefined) {
        values[field] = value;
        (draft.laterLines ??= new Map()).set(field, line);
      } else if (current !== value) {
        (draft.disagreements ??= []).push({ field, line, value });
      }
    }
  }
  if (!badQuotes) {
    const itemValues = new Array<string | undefined>(FIELDS.length);
    for (let i = 0; i < itemCells.length; i += 1) itemValues[ITEM_FIELD_INDEXES[i]!] = cellText(cells, itemCells[i]!);
    draft.items.push({ line, values: itemValues });
  }
  draft.rows.push(line);
  draft.records.push(record);
  return draft;
}

const lineOf = (draft: OrderDraft, field: number): number => draft.laterLines?.get(field) ?? draft.firstLine;

/**
 * The draft's values by field index, ready for buildOrder. Their origins are row numbers (one for the whole order
 * unless some value came from a later row; one per item); `columnNames` are the header texts by field index.
 */
export function draftCells(draft: OrderDraft, columnNames: readonly string[]): OrderCells {
  let origins: CellSet['origins'] = draft.firstLine;
  if (draft.laterLines) {
    const lines = new Array<number>(FIELDS.length).fill(draft.firstLine);
    for (const [field, line] of draft.laterLines) lines[field] = line;
    origins = lines;
  }
  const items = draft.items.map((item): CellSet => ({ values: item.values, origins: item.line }));
  return { order: { values: draft.values, origins }, items, columns: columnNames };
}

export const MAX_LISTED_ROWS = 10;

export function listRows(lines: number[]): string {
  const shown = lines.slice(0, MAX_LISTED_ROWS);
  const more = lines.length > MAX_LISTED_ROWS ? ' and more' : '';
  if (shown.length === 1) return `Row ${shown[0]}`;
  return `Rows ${shown.slice(0, -1).join(', ')} and ${shown.at(-1)}${more}`;
}

/** Problems found while collecting rows: unreadable quoting, and order fields on which rows disagree. */
export function draftProblems(
  draft: OrderDraft,
  file: string,
  provenanceAt: (index: number, line: number) => Provenance,
): Problem[] {
  const problems = (draft.badQuotes ?? []).map((line) =>
    problem(
      'error',
      file,
      { row: line },
      'csv.quotes',
      `Row ${line} has a malformed quoted cell (a quote that is not closed, or text after a closing quote), so its cells cannot be read; fix the row and import again.`,
    ),
  );
  if (!draft.disagreements) return problems;
  const byField = new Map<number, Disagreement[]>();
  for (const d of draft.disagreements) byField.set(d.field, [...(byField.get(d.field) ?? []), d]);
  for (const [index, list] of byField) {
    const path = FIELDS[index]!.path;
    const firstLine = lineOf(draft, index);
    const seen = [{ line: firstLine, value: draft.values[index]! }, ...list];
    const lines = [...new Set(seen.map((s) => s.line))].sort((a, b) => a - b);
    const listed = seen.map((s) => `${quote(s.value)} on row ${s.line}`).join(', ');
    const from = describeSource(provenanceAt(index, firstLine));
    problems.push(
      problem(
        'error',
        file,
        { row: list[0]!.line },
        'order.rowsDisagree',
        `${listRows(lines)} belong to the same order but disagree on ${describePath(path)}${from ? ` (${from})` : ''}: ${listed}.`,
        path,
      ),
    );
  }
  return problems;
}
