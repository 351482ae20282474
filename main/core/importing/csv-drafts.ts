import { restoreCell } from '../../../shared/csv-formula.js';
import {
  FIELDS,
  ITEM_FIELD_INDEXES,
  ORDER_FIELD_INDEXES,
  describePath,
  fieldIndex,
  itemPath,
} from '../model/field-catalogue.js';
import { normaliseHeader, type MappingProfile } from '../model/mapping-profile.js';
import { matchHeader } from './suggest-mapping.js';
import type { CellSet, OrderCells } from './order-builder.js';
import { describeSource, problem, quote } from './problems.js';
import type { Problem, Provenance } from '../model/imported-order.js';
import { TWO_PATIENTS } from '../model/sticky-problems.js';

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
  /** Columns nothing reads that hold part of a dosage (frequency, route, duration, a second instructions column). */
  dosageParts: { cell: number; header: string }[];
  problems: Problem[];
}

/** `3`, `3 and 9`, `3, 9 and 14`. */
function listNumbers(numbers: readonly number[]): string {
  return numbers.length === 1 ? `${numbers[0]}` : `${numbers.slice(0, -1).join(', ')} and ${numbers.at(-1)}`;
}

/** `"DOB" (columns 6 and 14)`, `"Surname", "surname " (columns 3 and 9)`: the header texts as written. */
function describeColumns(headerCells: readonly string[], cells: readonly number[]): string {
  const texts = [...new Set(cells.map((i) => headerCells[i]!))].map((text) => `"${text}"`).join(', ');
  return `${texts} (column${cells.length === 1 ? '' : 's'} ${listNumbers(cells.map((i) => i + 1))})`;
}

// What other programs make of a header they find twice: pandas `DOB.1`, papaparse `DOB_1`, `DOB (2)`.
const RENAMED_COPY = /^(.+?)\s*(?:[._]\s*\d{1,2}|\(\d{1,2}\))$/;
const RENAMED_COPY_MAX = 200;

export interface MapColumnsOptions {
  /** Warn about mapped headers the file lacks (not for our own template, which may be an older one). */
  warnMissing: boolean;
  /** The mapping was suggested from the header's names: say where two columns name one field. */
  suggested?: boolean;
}

/**
 * Resolves a profile's `columns` against the header row; warns about mapped headers the file lacks. A mapped
 * header the file has more than once (compared as header fingerprints compare them: case, spaces and punctuation
 * aside) is never read silently from its first column: it is an error naming the columns (`csv.duplicateHeader`),
 * unless the profile's `columnPositions` names the one to read. Where the mapping was suggested, two differently
 * named columns for one field are a warning (`csv.duplicateField`), and so is a column that looks like a mapped one
 * renamed by the program that wrote the file (`DOB_1` beside `DOB`: `csv.renamedDuplicate`).
 */
export function mapColumns(
  profile: MappingProfile,
  headerCells: string[],
  headerLine: number,
  file: string,
  options: MapColumnsOptions,
): ColumnMap {
  const problems: Problem[] = [];
  const at = { row: headerLine };
  const cellsByKey = new Map<string, number[]>();
  headerCells.forEach((cell, i) => {
    const key = normaliseHeader(cell);
    if (!key) return;
    const cells = cellsByKey.get(key);
    if (cells) cells.push(i);
    else cellsByKey.set(key, [i]);
  });
  const cellOf: number[] = FIELDS.map(() => -1);
  const unknown: string[] = [];
  const duplicated = new Map<string, { cells: number[]; labels: string[] }>();
  for (const [key, headerText] of Object.entries(profile.columns)) {
    const index = fieldIndex(key);
    if (index === undefined) {
      unknown.push(key);
      continue;
    }
    const cells = cellsByKey.get(normaliseHeader(headerText));
    if (!cells) {
      if (options.warnMissing) {
        problems.push(
          problem(
            'warning',
            file,
            at,
            'profile.missingColumn',
            `The profile maps ${FIELDS[index]!.label} to the column "${headerText}", but the file has no such column.`,
          ),
        );
      }
      continue;
    }
    cellOf[index] = cells[0]!;
    if (cells.length === 1) continue;
    const position = profile.columnPositions?.[key] ?? profile.columnPositions?.[FIELDS[index]!.column];
    if (position !== undefined && cells.includes(position - 1)) {
      cellOf[index] = position - 1;
      continue;
    }
    if (position !== undefined) {
      problems.push(
        problem(
          'warning',
          file,
          at,
          'profile.badColumnPosition',
          `The profile reads ${FIELDS[index]!.label} from column ${position}, but "${headerText}" is ${describeColumns(headerCells, cells)}, not column ${position}.`,
        ),
      );
    }
    const entry = duplicated.get(normaliseHeader(headerText)) ?? { cells, labels: [] };
    entry.labels.push(FIELDS[index]!.label);
    duplicated.set(normaliseHeader(headerText), entry);
  }
  if (duplicated.size > 0) {
    const entries = [...duplicated.values()];
    const fields = entries.flatMap((entry) => entry.labels);
    const example = entries[0]!;
    const exampleColumn = Object.entries(profile.columns).find(
      ([column]) => FIELDS[fieldIndex(column) ?? -1]?.label === example.labels[0],
    )?.[0];
    problems.push(
      problem(
        'error',
        file,
        at,
        'csv.duplicateHeader',
        `The header has the same column more than once: ${entries.map((entry) => describeColumns(headerCells, entry.cells)).join('; ')}. Which to read for ${listWords(fields)} cannot be told, so none was guessed: remove or rename the extra columns, or choose the column in the mapping profile (e.g. columnPositions { "${exampleColumn ?? 'column'}": ${example.cells.at(-1)! + 1} }).`,
      ),
    );
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
  problems.push(...copiedColumns(profile, headerCells, cellOf, file, at, options.suggested === true));
  return {
    cellOf,
    orderCells: ORDER_FIELD_INDEXES.map((index) => cellOf[index]!),
    itemCells: ITEM_FIELD_INDEXES.map((index) => cellOf[index]!),
    dosageParts: dosagePartColumns(headerCells, cellOf),
    problems,
  };
}

const DOSAGE = fieldIndex('dosageInstructions')!;
/** Headers (normalised) of a dosage's parts that exports give columns of their own (`Frequency`, `Route`…). */
const DOSAGE_PART =
  /^(?:dose|dosage|medication|drug|sig)?(?:frequency|freq|howoften|timing|route|routeofadministration|duration|instructions|directions|sig|dose|dosage|doseunit|doseunits)$/;

/**
 * Where the dosage is read from a column, the columns nothing reads that hold more of it: an export writing `Dose`,
 * `Frequency`, `Route` and `Duration` apart would have `1 tablet` sent as the whole instruction.
 */
function dosagePartColumns(headerCells: readonly string[], cellOf: readonly number[]): ColumnMap['dosageParts'] {
  if (cellOf[DOSAGE]! < 0) return [];
  const read = new Set(cellOf.filter((cell) => cell >= 0));
  const parts: ColumnMap['dosageParts'] = [];
  headerCells.forEach((text, i) => {
    if (read.has(i)) return;
    const key = normaliseHeader(text);
    const column = matchHeader(text);
    if (column === 'dosageInstructions' || (column === undefined && key !== '' && DOSAGE_PART.test(key)))
      parts.push({ cell: i, header: text });
  });
  return parts;
}

const listWords = (words: readonly string[]): string =>
  words.length === 1 ? words[0]! : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;

/**
 * Columns nothing reads that hold what a read column holds: a second column naming the same field in a suggested
 * mapping (`DOB` and `Date of Birth`), and a read column's copy renamed by another program (`DOB_1`). Warnings:
 * the file may be fine, but the admin should know which column was read.
 */
function copiedColumns(
  profile: MappingProfile,
  headerCells: readonly string[],
  cellOf: readonly number[],
  file: string,
  at: { row: number },
  suggested: boolean,
): Problem[] {
  const problems: Problem[] = [];
  const read = new Set(cellOf.filter((cell) => cell >= 0));
  const readKeys = new Map<string, number>();
  for (const cell of read) readKeys.set(normaliseHeader(headerCells[cell]!), cell);
  const mappedTexts = new Set(Object.values(profile.columns).map(normaliseHeader));
  headerCells.forEach((text, i) => {
    const key = normaliseHeader(text);
    if (read.has(i) || !key || mappedTexts.has(key)) return;
    const column = matchHeader(text);
    if (suggested && column) {
      const index = fieldIndex(column)!;
      const readCell = cellOf[index]!;
      if (readCell >= 0) {
        problems.push(
          problem(
            'warning',
            file,
            at,
            'csv.duplicateField',
            `Columns ${readCell + 1} "${headerCells[readCell]}" and ${i + 1} "${text}" both name ${FIELDS[index]!.label}; column ${readCell + 1} was read (the mapping can choose the other).`,
          ),
        );
      }
      return;
    }
    // A header past any field name's length is no renamed copy (and the pattern's time grows with the square of it).
    const copy = text.length <= RENAMED_COPY_MAX ? RENAMED_COPY.exec(text.trim()) : null;
    const original = copy ? readKeys.get(normaliseHeader(copy[1]!)) : undefined;
    if (original !== undefined && !column) {
      problems.push(
        problem(
          'warning',
          file,
          at,
          'csv.renamedDuplicate',
          `Column ${i + 1} "${text}" looks like a second "${headerCells[original]}" column, renamed by the program that wrote the file; only column ${original + 1} was read (check they agree, or map the one to read).`,
        ),
      );
    }
  });
  return problems;
}

/**
 * What database exports write for a cell with no value: `NULL` (SQL Server, Access), `\N` (MySQL), `null` (exports
 * from JavaScript). Read as the text, a delivery line or an email went out saying NULL. Read as no value, and said
 * (`csv.nullText`). Excel's text formula `="NULL"` is the text.
 */
const NULL_TEXTS: ReadonlySet<string> = new Set(['NULL', 'null', '\\N']);

/** The cell holds a database's "no value" (see NULL_TEXTS), which cellText reads as blank. */
function nullAt(cells: string[], at: number): boolean {
  if (at < 0) return false;
  const raw = cells[at];
  return raw !== undefined && raw.length >= 2 && NULL_TEXTS.has(raw.trim());
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
  if (text === '') return undefined;
  if (text.length <= 4 && NULL_TEXTS.has(text)) return undefined;
  // ="000123": a formula whose result is the text inside, as exports made for Excel keep leading zeros. Read as the
  // text a spreadsheet shows (`""` inside being one quote); a guarded '="x" is restored below, never unwrapped.
  if (text.charCodeAt(0) === 61 && text.charCodeAt(1) === 34 && text.length > 2 && text.endsWith('"')) {
    const inner = text.slice(2, -1);
    if (!inner.replaceAll('""', '').includes('"')) return inner.replaceAll('""', '"').trim() || undefined;
  }
  return restoreCell(text);
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
  /** A bad-quote row whose record ran on over later lines (a quote left open): its row and the last line taken in. */
  badQuoteEnds?: Map<number, number>;
  /** Cells holding a database's NULL, read as blank: field index, row and the text. */
  nullTexts?: { field: number; line: number; text: string }[];
  /** Rows with more filled cells than the header (its cells may have moved): the row and the extra cells. */
  extraCells?: { line: number; texts: string[] }[];
  /** Items whose row fills a dosage part column nothing reads: the row and the column indexes. */
  dosageParts?: { line: number; parts: { header: string; value: string }[] }[];
  /** Values holding a line break (a quoted cell that runs onto the next line): field index, row and the value. */
  lineBreaks?: { field: number; line: number; value: string }[];
  /**
   * The file's last row, short of cells with no line break after it (the file may be cut short inside it): the row,
   * its cells, and the field read from its last cell (or the first field of a missing column), with the value.
   */
  cutShort?: { line: number; cells: number; of: number; field: number; value?: string };
}

/**
 * The file stops inside its last row: a short row with no line break after it, where no row before was short (an
 * export that leaves out trailing empty cells does so on many rows). Its last value may be cut (quantity `1` of
 * `16`), and the fields of its missing columns lost, so the field is named: nothing was said but a file warning.
 */
export function noteCutShort(
  draft: OrderDraft,
  columns: ColumnMap,
  cells: string[],
  line: number,
  headerCells: number,
): void {
  const last = cells.length - 1;
  const lastField = columns.cellOf.findIndex((cell) => cell === last);
  const value = lastField >= 0 ? cellText(cells, last) : undefined;
  if (value !== undefined) {
    draft.cutShort = { line, cells: cells.length, of: headerCells, field: lastField, value };
    return;
  }
  // The last cell is empty or read by no field: a field of a missing column is what may have been lost.
  let missing = -1;
  columns.cellOf.forEach((cell, field) => {
    if (cell > last && (missing < 0 || cell < columns.cellOf[missing]!)) missing = field;
  });
  if (missing >= 0) draft.cutShort = { line, cells: cells.length, of: headerCells, field: missing };
}

/** Adds one row to a draft (a new one when `draft` is undefined) and returns the draft. */
export function addRow(
  draft: OrderDraft | undefined,
  columns: ColumnMap,
  cells: string[],
  line: number,
  record: string,
  quotesBroken: boolean,
  /** The filled cells beyond the header's last column, if any. */
  extra?: string[],
): OrderDraft {
  const { orderCells, itemCells } = columns;
  // The cells of a row with broken quoting, or more cells than the header (moved by an unquoted delimiter), cannot
  // be trusted: keep the row (its order is blocked until it is fixed) but take none of its values.
  const badQuotes = quotesBroken || extra !== undefined;
  if (badQuotes) {
    draft ??= {
      values: new Array<string | undefined>(FIELDS.length),
      firstLine: line,
      items: [],
      rows: [],
      records: [],
    };
    if (quotesBroken) {
      (draft.badQuotes ??= []).push(line);
      const end = line + lineBreaksIn(record.replace(/[\r\n]+$/, ''));
      if (end > line) (draft.badQuoteEnds ??= new Map()).set(line, end);
    } else (draft.extraCells ??= []).push({ line, texts: extra! });
  } else if (!draft) {
    const values = new Array<string | undefined>(FIELDS.length);
    draft = { values, firstLine: line, items: [], rows: [], records: [] };
    for (let i = 0; i < orderCells.length; i += 1) {
      const value = cellText(cells, orderCells[i]!);
      values[ORDER_FIELD_INDEXES[i]!] = value;
      if (value === undefined && nullAt(cells, orderCells[i]!))
        noteNull(draft, ORDER_FIELD_INDEXES[i]!, line, cells, orderCells[i]!);
    }
  } else {
    // Compared in place: rows of one order mostly repeat the same values.
    const values = draft.values;
    for (let i = 0; i < orderCells.length; i += 1) {
      const value = cellText(cells, orderCells[i]!);
      if (value === undefined) {
        if (nullAt(cells, orderCells[i]!)) noteNull(draft, ORDER_FIELD_INDEXES[i]!, line, cells, orderCells[i]!);
        continue;
      }
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
    for (let i = 0; i < itemCells.length; i += 1) {
      const value = cellText(cells, itemCells[i]!);
      itemValues[ITEM_FIELD_INDEXES[i]!] = value;
      if (value === undefined && nullAt(cells, itemCells[i]!))
        noteNull(draft, ITEM_FIELD_INDEXES[i]!, line, cells, itemCells[i]!);
    }
    draft.items.push({ line, values: itemValues });
    if (columns.dosageParts.length > 0) {
      const parts = columns.dosageParts.flatMap(({ cell, header }) => {
        const value = cellText(cells, cell);
        return value === undefined ? [] : [{ header, value }];
      });
      if (parts.length > 0) (draft.dosageParts ??= []).push({ line, parts });
    }
  }
  // Only a quoted cell can hold a line break, and then the record does: most rows pay two scans of their text.
  if (!badQuotes && (record.includes('\n') || record.includes('\r'))) noteLineBreaks(draft, columns, cells, line);
  draft.rows.push(line);
  draft.records.push(record);
  return draft;
}

const LINE_BREAK = /[\r\n]/;

/** An order field is said once, at the first row that has the line break (its later rows repeat the value). */
function noteLineBreaks(draft: OrderDraft, columns: ColumnMap, cells: string[], line: number): void {
  const note = (fields: readonly number[], at: readonly number[], once: boolean) => {
    for (let i = 0; i < at.length; i += 1) {
      const value = cellText(cells, at[i]!);
      if (value === undefined || !LINE_BREAK.test(value)) continue;
      const field = fields[i]!;
      if (once && draft.lineBreaks?.some((noted) => noted.field === field)) continue;
      (draft.lineBreaks ??= []).push({ field, line, value });
    }
  };
  note(ORDER_FIELD_INDEXES, columns.orderCells, true);
  note(ITEM_FIELD_INDEXES, columns.itemCells, false);
}

/** Dosage instructions may run over lines (HL7's `\.br\` is read as a line break too); the other fields are one line. */
const MULTILINE: ReadonlySet<number> = new Set([fieldIndex('dosageInstructions')!]);

/**
 * A value with a line break (a spreadsheet's Alt+Enter, or a quote left open that took in the next line) is sent as
 * written, which the admin should see before it goes: a warning on the field, naming the row and column. Valid CSV,
 * and text the app's own exports write back exactly, so it does not block the order.
 */
function lineBreakProblems(
  draft: OrderDraft,
  file: string,
  provenanceAt: (index: number, line: number) => Provenance,
): Problem[] {
  return (draft.lineBreaks ?? []).map(({ field, line, value }) => {
    const spec = FIELDS[field]!;
    const item = spec.level === 'item' ? draft.items.findIndex((entry) => entry.line === line) : -1;
    const path = item >= 0 ? itemPath(field, item) : spec.path;
    const from = describeSource(provenanceAt(field, line));
    const shown = quote(value.replace(/\r\n|\r|\n/g, ' ↵ '));
    const advice = MULTILINE.has(field)
      ? 'if it should be one line, edit it in the preview or the file'
      : `${describePath(path)} is usually one line, so the cell may hold two values, or a quote left open took in the next line: check it, and write it on one line in the preview or the file if so`;
    return problem(
      'warning',
      file,
      { row: line },
      'csv.lineBreakInCell',
      `Row ${line}${from ? `, ${from},` : ''} holds a line break (↵) in ${describePath(path)} ${shown}: it is sent with the line break, as written; ${advice}.`,
      path,
    );
  });
}

function noteNull(draft: OrderDraft, field: number, line: number, cells: string[], at: number): void {
  (draft.nullTexts ??= []).push({ field, line, text: cells[at]!.trim() });
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

/** Up to this many rows an order's rows are compared pairwise for repeats (repeatedRows). */
const PAIRWISE_ROWS = 12;

/**
 * Rows of one order that are the same text (a row copied twice, two exports joined): the order would carry the item
 * twice, and a patient get twice the medicine. A warning on each copy, naming the rows: it may be meant (two packs
 * written as two rows), so it does not block the order.
 */
function repeatedRows(draft: OrderDraft, file: string): Problem[] {
  const problems: Problem[] = [];
  const { records, rows } = draft;
  // Most orders have a few rows: comparing them pairwise is cheaper than hashing every row's whole text into a map.
  const firstRow = records.length > PAIRWISE_ROWS ? new Map<string, number>() : undefined;
  const texts = records.map((record) => record.trim());
  for (let i = 0; i < texts.length; i += 1) {
    const text = texts[i]!;
    const line = rows[i]!;
    let earlier: number | undefined;
    if (firstRow) {
      earlier = firstRow.get(text);
      if (earlier === undefined) firstRow.set(text, line);
    } else {
      for (let j = 0; j < i && earlier === undefined; j += 1) if (texts[j] === text) earlier = rows[j];
    }
    if (earlier === undefined) continue;
    const item = draft.items.findIndex((entry) => entry.line === line);
    const medication = item >= 0 ? draft.items[item]!.values[MEDICATION] : undefined;
    problems.push(
      problem(
        'warning',
        file,
        { row: line },
        'csv.repeatedRow',
        `Row ${line} is the same as row ${earlier}, so the order has ${medication ? `the item ${quote(medication)}` : 'its item'} twice; if the row was copied by mistake, remove it.`,
      ),
    );
  }
  return problems;
}

const MEDICATION = fieldIndex('medication')!;

/** The fields that say who the patient is: rows of one order that disagree on two of them are two patients. */
const PATIENT_IDENTITY = new Set([
  'customer.firstName',
  'customer.surname',
  'customer.dateOfBirth',
  'customer.clinicAccountNumber',
]);

/**
 * Rows of one order naming two patients (two of their name, date of birth and clinic account number differ): no
 * edit in the preview can make them one order without sending one patient's items to the other, so this problem
 * names no field and an edit never clears it (STICKY_IMPORT_PROBLEMS): the file must give each its own order id.
 */
function twoPatientsProblem(
  draft: OrderDraft,
  file: string,
  byField: Map<number, Disagreement[]>,
): Problem | undefined {
  const differing = [...byField.keys()].filter((index) => PATIENT_IDENTITY.has(FIELDS[index]!.path));
  if (differing.length < 2) return undefined;
  const lines = [
    ...new Set([
      ...differing.map((index) => lineOf(draft, index)),
      ...differing.flatMap((index) => byField.get(index)!.map((d) => d.line)),
    ]),
  ].sort((a, b) => a - b);
  const fields = listWords(differing.map((index) => FIELDS[index]!.label));
  return problem(
    'error',
    file,
    { row: lines[0]! },
    TWO_PATIENTS,
    `${listRows(lines)} share a clinic order id but name two patients (their ${fields} differ), so they cannot be sent as one order and no edit here makes them one. Give each patient's rows their own clinic order id in the file and import it again.`,
  );
}

/**
 * What to do about rows that disagree: a value set in the preview becomes the one order's, so two patients' orders
 * that share a clinic order id (a clinic system that reused it) would go out as one; the file has to separate them.
 */
const SAME_ORDER_FIX =
  'Rows with the same clinic code and clinic order id are one order: if these are different orders, give each its own clinic order id in the file and import it again; if they are one order, correct the value (in the preview or the file).';

/**
 * An item whose row has more of its dosage in columns nothing reads (`Frequency`, `Route`, a second instructions
 * column) would be sent with part of it as the whole instruction: an error on its dosage, naming what was read and
 * what was left, cleared by writing the whole instruction in the preview.
 */
function dosagePartProblems(
  draft: OrderDraft,
  file: string,
  provenanceAt: (index: number, line: number) => Provenance,
): Problem[] {
  return (draft.dosageParts ?? []).map(({ line, parts }) => {
    const item = draft.items.findIndex((entry) => entry.line === line);
    const path = itemPath(DOSAGE, item);
    const read = draft.items[item]?.values[DOSAGE];
    const from = describeSource(provenanceAt(DOSAGE, line));
    const left = parts.map(({ header, value }) => `"${header}" (${quote(value)})`);
    return problem(
      'error',
      file,
      { row: line },
      'csv.dosagePartUnread',
      `Row ${line}: ${describePath(path)} ${read === undefined ? 'are empty' : `are read from ${from} alone (${quote(read)})`}, and the column${left.length === 1 ? '' : 's'} ${listWords(left)} ${left.length === 1 ? 'holds' : 'hold'} more of the dosage that nothing reads, so it would be sent without ${left.length === 1 ? 'it' : 'them'}. Write the whole instruction in the preview, or join the columns into one dosage column in the file.`,
      path,
    );
  });
}

function cutShortProblem(
  draft: OrderDraft,
  cut: NonNullable<OrderDraft['cutShort']>,
  file: string,
  provenanceAt: (index: number, line: number) => Provenance,
): Problem {
  const spec = FIELDS[cut.field]!;
  const item = spec.level === 'item' ? draft.items.findIndex((entry) => entry.line === cut.line) : -1;
  const path = item >= 0 ? itemPath(cut.field, item) : spec.path;
  const from = describeSource(provenanceAt(cut.field, cut.line));
  const what =
    cut.value !== undefined
      ? `its last value, ${describePath(path)} ${quote(cut.value)}${from ? ` (${from})` : ''}, may be incomplete`
      : `${describePath(path)}${from ? ` (${from})` : ''} and the columns after it are missing`;
  return problem(
    'error',
    file,
    { row: cut.line },
    'csv.lastRowCut',
    `Row ${cut.line} is the file's last and stops after ${cut.cells} of the header's ${cut.of} columns, with no line break after it: the file may have been cut short in the middle of this row (a copy or transfer that stopped), so ${what}. Check the row against the clinic system and correct it in the preview, or import the whole file again.`,
    path,
  );
}

const lineBreaksIn = (text: string): number => text.split(/\r\n|\r|\n/).length - 1;

/**
 * A malformed quoted cell. One whose quote ran on over later lines took them in: the orders on them were never read
 * as rows, so they are named, or they would go missing with nothing said about them.
 */
function badQuoteText(line: number, end: number | undefined): string {
  if (end === undefined) {
    return `Row ${line} has a malformed quoted cell (a quote that is not closed, or text after a closing quote), so its cells cannot be read; fix the row and import again.`;
  }
  const one = end === line + 1;
  const taken = one ? `row ${end} was` : `rows ${line + 1} to ${end} were`;
  return `Row ${line} has a quoted cell that runs on past its row to row ${end} (a quote left open, or text after a closing quote), so ${taken} read into that cell, not as ${one ? 'a row of its own' : 'rows of their own'}: no order on ${one ? 'it' : 'them'} was read, and row ${line}'s cells cannot be read. Fix the quote in row ${line} and import again.`;
}

/** Problems found while collecting rows: unreadable quoting, and order fields on which rows disagree. */
export function draftProblems(
  draft: OrderDraft,
  file: string,
  provenanceAt: (index: number, line: number) => Provenance,
): Problem[] {
  const problems = (draft.badQuotes ?? []).map((line) =>
    problem('error', file, { row: line }, 'csv.quotes', badQuoteText(line, draft.badQuoteEnds?.get(line))),
  );
  for (const { field, line, text } of draft.nullTexts ?? []) {
    const spec = FIELDS[field]!;
    // An item's field is named by its item (the order's nth row of items), like the other item problems.
    const item = spec.level === 'item' ? draft.items.findIndex((entry) => entry.line === line) : -1;
    const path = item >= 0 ? itemPath(field, item) : spec.path;
    const from = describeSource(provenanceAt(field, line));
    // No `field`: the importer skips validating a field its draft problems name, and a required field read as
    // empty must still be refused as missing.
    problems.push(
      problem(
        'warning',
        file,
        { row: line },
        'csv.nullText',
        `Row ${line}${from ? `, ${from},` : ''} holds ${quote(text)}, which database exports write for no value, so the cell was read as empty (${describePath(path)}). If it is meant as text, write it as ="${text}".`,
      ),
    );
  }
  for (const { line, texts } of draft.extraCells ?? []) {
    // The cells cannot be matched to the columns: one holding the delimiter, unquoted, moved every later one on. A
    // word processor or a spreadsheet's autocorrect may have written its quotes as typographic ones, which CSV does
    // not read as quotes.
    const record = draft.records[draft.rows.indexOf(line)] ?? '';
    const curly = /[\u201c\u201d\u201e\u00ab\u00bb]/.test(record)
      ? ' The row has typographic quotes (“ ”), which CSV does not read as quotes: write them as straight quotes (").'
      : '';
    problems.push(
      problem(
        'error',
        file,
        { row: line },
        'csv.extraCells',
        `Row ${line} has more cells than the header (beyond its last column: ${listWords(texts.slice(0, 3).map(quote))}${texts.length > 3 ? ' and more' : ''}), so its cells cannot be matched to the columns (a cell holding the delimiter that is not quoted moves every cell after it one column on) and none was read. Quote that cell, or name the extra columns in the header, and import again.${curly}`,
      ),
    );
  }
  if (draft.cutShort) problems.push(cutShortProblem(draft, draft.cutShort, file, provenanceAt));
  if (draft.lineBreaks) problems.push(...lineBreakProblems(draft, file, provenanceAt));
  if (draft.dosageParts) problems.push(...dosagePartProblems(draft, file, provenanceAt));
  if (draft.records.length > 1) problems.push(...repeatedRows(draft, file));
  if (!draft.disagreements) return problems;
  const byField = new Map<number, Disagreement[]>();
  for (const d of draft.disagreements) byField.set(d.field, [...(byField.get(d.field) ?? []), d]);
  const twoPatients = twoPatientsProblem(draft, file, byField);
  if (twoPatients) problems.push(twoPatients);
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
        `${listRows(lines)} belong to the same order but disagree on ${describePath(path)}${from ? ` (${from})` : ''}: ${listed}. ${SAME_ORDER_FIX}`,
        path,
      ),
    );
  }
  return problems;
}
