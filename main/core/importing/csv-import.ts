import { restoreCell } from '../../../shared/csv-formula.js';
import type { ProfileChoice } from '../../../shared/staging-views.js';
import { compileProfile } from './compiled-profile.js';
import {
  MAX_LISTED_ROWS,
  addRow,
  cellText,
  cellValue,
  draftCells,
  draftProblems,
  listRows,
  mapColumns,
  noteCutShort,
  type OrderDraft,
} from './csv-drafts.js';
import {
  CsvRecordSplitter,
  MAX_RECORD_CHARS,
  RecordTooLargeError,
  isBlankUnquoted,
  parseBatch,
  unquotedCell,
  type RecordBatch,
} from './csv-records.js';
import { candidateHeaderRow, chooseLayout, sampleRecords, type HeaderChoice, type SampleRecord } from './csv-sniff.js';
import {
  maxSummaryCells,
  repeatedHeaderEntry,
  repeatsHeader,
  summaryCheckCells,
  summaryEntry,
  summaryLine,
} from './csv-summary-rows.js';
import { FIELDS, ORDER_FIELD_INDEXES, fieldIndex } from '../model/field-catalogue.js';
import { decodedChunks, type Inspection } from './file-source.js';
import type { ImportSource } from './import-source.js';
import { finishOrder, type OrderSink } from './finish-order.js';
import { LeadingApostrophes } from './csv-apostrophes.js';
import { NOT_TEXT } from './validate-order.js';
import { missingRequiredColumns } from './missing-columns.js';
import { otherFormatProblem } from './other-formats.js';
import { problem, quote } from './problems.js';
import { UnusualSpaces, holdsUnusualSpace, plainSpaces } from './unusual-spaces.js';
import type { ImportReport, Problem, Provenance } from '../model/imported-order.js';
import type { ImportOptions } from '../model/import-options.js';
import type { MappingProfile } from '../model/mapping-profile.js';

/**
 * CSV import: one row per prescribed item, rows grouped into orders by clinicCode + clinicOrderId (rows of one
 * order need not be next to each other). Two passes over the file keep memory flat whatever its size: the first
 * only counts the rows of each order; the second builds each order and hands it on as soon as its last row has
 * been read, so only orders still waiting for rows are held (one, when rows of an order are together).
 */

const NOTHING_REPORTED: ReadonlySet<string> = new Set();

export async function importCsv(
  source: ImportSource,
  file: string,
  inspection: Inspection,
  options: ImportOptions,
  sink: OrderSink,
): Promise<ImportReport> {
  const base = {
    file: source.path,
    format: 'csv' as const,
    encoding: inspection.encoding,
    encodingDetected: inspection.encodingDetected,
  };
  const failed = (p: Problem, extra: Partial<ImportReport> = {}): ImportReport => ({
    ...base,
    ...extra,
    rowsRead: 0,
    orders: [],
    orderCount: 0,
    invalidCount: 0,
    fileProblems: [p],
  });

  const { delimiter, header } = chooseLayout(
    inspection.sample,
    inspection.whole,
    options.profile,
    options.profiles ?? [],
  );
  if (!header) {
    // XML, JSON, HL7 without its MSH: said as what it is, not as a CSV wanting a mapping profile.
    const other = otherFormatProblem(file, inspection.sample);
    if (other) return failed(other, other.code === 'hl7.noMessageHeader' ? { format: 'hl7' } : {});
    return failed(
      problem(
        'error',
        file,
        {},
        options.profile ? 'csv.profileHeaderNotFound' : 'csv.noHeader',
        options.profile
          ? `No row near the top of the file has the headers of profile "${options.profile.name}".`
          : 'No header row found: no row near the top names at least three order fields, among them the clinic order id or the item (e.g. order id, dm+d code, medication); a list of patients alone is no order file. Choose or create a mapping profile.',
      ),
      {
        delimiter,
        ...candidateOf(options.profile ? undefined : sampleRecords(inspection.sample, inspection.whole, delimiter)),
      },
    );
  }
  const profile = header.profile;
  // Header cells read like data cells (a neutralised `'-dose` header is `-dose`); header.record.text stays as in the file.
  const headerCells = header.record.cells.map(restoreCell);
  const headerLine = header.record.line;
  const compiled = compileProfile(profile, file);
  // A CSV value is text of the file or of the profile: while neither holds U+FFFD or a control character, no value
  // can (validateOrder).
  let noUnreadableText = !JSON.stringify(profile).includes('\uFFFD');
  // Set once a chunk holds a no-break or zero-width space (unusual-spaces.ts): only then are cells read through
  // plainSpaces. Pass 1 reads the whole file (pass 2 need not look again), so pass 2 reads every row alike.
  let unusualSpaces = false;
  let spacesLooked = false;
  const spaces = new UnusualSpaces();
  // Our own template may be an older one without some columns; that is not worth a warning.
  const columns = mapColumns(profile, headerCells, headerLine, file, {
    warnMissing: header.via !== 'template',
    suggested: header.via === 'suggested',
  });
  const fileProblems: Problem[] = [...compiled.problems, ...columns.problems];
  const missing =
    header.via === 'template'
      ? missingRequiredColumns(columns.cellOf, compiled.constants, file, headerLine)
      : undefined;
  if (missing) fileProblems.push(missing);
  const fullName = header.via === 'suggested' ? fullNameColumn(profile, headerCells) : undefined;
  if (fullName) {
    fileProblems.push(
      problem(
        'warning',
        file,
        { row: headerLine },
        'csv.fullNameColumn',
        `Column ${quote(fullName)} looks like the patient's whole name in one cell, but an order needs the first name and the surname apart (and the title), so it was not read: which part is which is not guessed. Split it into columns of their own (title, firstName, surname) and import the file again.`,
        'customer.surname',
      ),
    );
  }

  const codeAt = ORDER_FIELD_INDEXES.indexOf(fieldIndex('clinicCode')!);
  const idAt = ORDER_FIELD_INDEXES.indexOf(fieldIndex('clinicOrderId')!);
  const constantCode = compiled.constants[fieldIndex('clinicCode')!] ?? '';
  const constantId = compiled.constants[fieldIndex('clinicOrderId')!] ?? '';
  /** Rows group by clinic and order id; a row without an order id is an order of its own (reported as missing). */
  const keyOf = (cells: string[], line: number): string => {
    const code = cellText(cells, columns.orderCells[codeAt]!) ?? constantCode;
    const id = cellText(cells, columns.orderCells[idAt]!) ?? constantId;
    return id === '' ? `\u0001${line}` : `${code}\u0000${id}`;
  };

  /** Streams the file's record batches to `onBatch`, and calls `afterBatch` after each chunk of the file. */
  const eachBatch = async (
    onBatch: (batch: RecordBatch) => void | Promise<void>,
    afterBatch: (bytes: number) => void,
  ) => {
    const splitter = new CsvRecordSplitter(delimiter, MAX_RECORD_CHARS);
    let bytes = 0;
    for await (const chunk of decodedChunks(source, inspection.encoding, {
      signal: options.signal,
      onBytes: (n) => (bytes += n),
      length: inspection.textBytes,
      padding: inspection.totalBytes - inspection.textBytes,
    })) {
      // Pass 1 reads the whole file: pass 2 need not look again (a regular expression walks every character).
      if (noUnreadableText && !spacesLooked && NOT_TEXT.test(chunk)) noUnreadableText = false;
      if (!unusualSpaces && !spacesLooked && holdsUnusualSpace(chunk)) unusualSpaces = true;
      const batch = splitter.push(chunk);
      if (batch) await onBatch(batch);
      afterBatch(bytes);
    }
    const last = splitter.end();
    if (last) await onBatch(last);
    afterBatch(bytes);
  };
  /** The first data row with white space before a cell's opening quote (csv-records.ts). */
  let spacedQuoteLine: number | undefined;
  /**
   * The data rows of a batch (after the header; blank ones skipped), parsed, to `onRow`; a row handler's promise is
   * awaited before the next row. A batch without quotes is split a record at a time, so only the rows of orders
   * still waiting for rows stay alive.
   */
  const eachRow =
    (
      onRow: (cells: string[], line: number, record: string, badQuotes: boolean, last: boolean) => void | Promise<void>,
    ) =>
    async (batch: RecordBatch) => {
      const parsed = batch.text.includes('"') ? parseBatch(batch, delimiter) : undefined;
      if (parsed?.spacedQuote !== undefined) {
        const at = batch.lines[parsed.spacedQuote]!;
        if (at > headerLine) spacedQuoteLine ??= at;
      }
      for (let i = 0; i < batch.records.length; i += 1) {
        const line = batch.lines[i]!;
        if (line <= headerLine) continue; // title rows and the header itself
        const record = batch.records[i]!;
        let cells = parsed ? parsed.rows[i]! : record.split(delimiter);
        if (unusualSpaces) cells = cells.map((cell) => spaces.read(cell, { row: line }));
        if (cells.every((cell) => cell.trim() === '')) continue; // blank and trailing lines
        const last = batch.unterminated === true && i === batch.records.length - 1;
        const pending = onRow(cells, line, record, parsed?.badQuotes.has(i) ?? false, last);
        if (pending) await pending;
      }
    };

  // Pass 1: how many rows each order has. Only the key cells are needed: a batch without quotes is not parsed.
  const rowCounts = new Map<string, number>();
  let rowsRead = 0;
  const count = (key: string) => {
    rowsRead += 1;
    rowCounts.set(key, (rowCounts.get(key) ?? 0) + 1);
  };
  const codeCell = columns.orderCells[codeAt]!;
  const idCell = columns.orderCells[idAt]!;
  const keyCell = (record: string, at: number) => {
    if (at < 0) return undefined;
    const raw = unquotedCell(record, delimiter, at);
    // Read as cellText reads it in pass 2, so both passes group rows alike.
    return raw === undefined ? undefined : cellValue(unusualSpaces ? plainSpaces(raw) : raw);
  };
  const countKeys = (batch: RecordBatch) => {
    if (batch.text.includes('"')) return eachRow((cells, line) => count(keyOf(cells, line)))(batch);
    for (let i = 0; i < batch.records.length; i += 1) {
      const line = batch.lines[i]!;
      const record = batch.records[i]!;
      if (line <= headerLine || isBlankUnquoted(unusualSpaces ? plainSpaces(record) : record, delimiter)) continue;
      const code = keyCell(record, codeCell) ?? constantCode;
      const id = keyCell(record, idCell) ?? constantId;
      count(id === '' ? `\u0001${line}` : `${code}\u0000${id}`);
    }
    return undefined;
  };
  try {
    await eachBatch(countKeys, () => undefined);
    spacesLooked = true;
  } catch (error) {
    if (!(error instanceof RecordTooLargeError)) throw error;
    return failed(
      problem(
        'error',
        file,
        { row: error.line },
        'csv.recordTooLarge',
        `The record starting on line ${error.line} is longer than ${MAX_RECORD_CHARS.toLocaleString('en-GB')} characters; no order row is that long (an unclosed quote, or the wrong file?).`,
      ),
      { delimiter },
    );
  }

  const reportBase = {
    ...base,
    delimiter,
    headerRow: headerLine,
    header: { cells: headerCells, text: header.record.text },
    profile: profile.name,
    appliedProfile: profile,
    profileChoice: csvProfileChoice(header.via, profile.name),
  };
  if (rowsRead === 0) {
    return {
      ...failed(
        problem(
          'error',
          file,
          {},
          'csv.noRows',
          "The file has a header row but no data rows: add one row per prescribed item below the header (the template's example row shows how), or check that this is the file you meant.",
        ),
      ),
      ...reportBase,
    };
  }

  // Pass 2: build each order once its last row is in, and hand it on.
  const today = options.today ?? new Date();
  const columnName = (index: number) => headerCells[columns.cellOf[index]!] ?? FIELDS[index]!.column;
  const columnNames = FIELDS.map((_, index) => columnName(index));
  const provenanceAt = (index: number, line: number): Provenance => ({
    kind: 'csv',
    file,
    row: line,
    column: columnName(index),
  });
  const drafts = new Map<string, OrderDraft>();
  const short: number[] = [];
  let rowsDone = 0;
  let orderCount = 0;
  let invalidCount = 0;

  const finish = (draft: OrderDraft): void | Promise<void> => {
    const extra = draftProblems(draft, file, provenanceAt);
    const { order, provenance } = finishOrder({
      cells: draftCells(draft, columnNames),
      profile: compiled,
      file,
      today,
      fallback: { row: draft.rows[0]! },
      codeLists: options.codeLists,
      extraProblems: extra,
      // A warning on a field (a dosage over two lines) leaves it to be validated.
      reported:
        extra.length > 0
          ? new Set(extra.flatMap((p) => (p.field && p.severity === 'error' ? [p.field] : [])))
          : NOTHING_REPORTED,
      isKnownOrder: options.isKnownOrder,
      // Other checks would only report the consequences of an unreadable row.
      skipValidation: draft.badQuotes !== undefined || draft.extraCells !== undefined,
      noUnreadableText,
      decimalComma: delimiter === ';',
      source: { file, rows: draft.rows, records: draft.records },
    });
    orderCount += 1;
    if (!order.valid) invalidCount += 1;
    return sink(order, { provenance });
  };

  const apostrophes = new LeadingApostrophes();
  const summaryCells = summaryCheckCells(columns);
  const summaryMax = maxSummaryCells(headerCells);
  await eachBatch(
    eachRow((cells, line, record, badQuotes, last) => {
      rowsDone += 1;
      const key = keyOf(cells, line);
      const rows = rowCounts.get(key);
      const beyond =
        cells.length > headerCells.length && !badQuotes
          ? cells.slice(headerCells.length).flatMap((c) => (c.trim() === '' ? [] : [c.trim()]))
          : undefined;
      const extra = beyond && beyond.length > 0 ? beyond : undefined;
      // "Total: 3 orders", the header again (csv-summary-rows.ts): one entry with one error, not an order.
      const filled = rows === 1 && !badQuotes ? summaryLine(cells, summaryCells, summaryMax) : undefined;
      const header = !filled && !badQuotes && repeatsHeader(cells, headerCells);
      if (filled || header) {
        orderCount += 1;
        invalidCount += 1;
        return sink(
          filled
            ? summaryEntry(file, line, record, cells, filled, headerCells)
            : repeatedHeaderEntry(file, line, record),
        );
      }
      // Fewer cells than the header (a row cut short, or split by a line break in an unquoted cell): its last
      // columns were read as empty, which the order's errors alone do not say.
      const isShort = !badQuotes && cells.length > 1 && cells.length < headerCells.length;
      const cut = isShort && last && short.length === 0;
      if (isShort && short.length <= MAX_LISTED_ROWS) short.push(line);
      if (!badQuotes) apostrophes.note(cells, line, columns, headerCells);
      const draft = addRow(drafts.get(key), columns, cells, line, record, badQuotes, extra);
      if (cut) noteCutShort(draft, columns, cells, line, headerCells.length);
      // An order is finished (and handed on) as soon as its last row is in.
      if (draft.rows.length !== rows) {
        drafts.set(key, draft);
        return undefined;
      }
      drafts.delete(key);
      return finish(draft);
    }),
    (bytes) => options.onProgress?.({ bytes, totalBytes: inspection.totalBytes, rows: rowsDone }),
  );
  // Only if the file changed between the passes: finish what is left as it is.
  for (const draft of drafts.values()) await finish(draft);

  const spaced = spaces.problem(file);
  if (spaced) fileProblems.push(spaced);
  const apostrophe = apostrophes.problem(file);
  if (apostrophe) fileProblems.push(apostrophe);
  if (spacedQuoteLine !== undefined) {
    fileProblems.push(
      problem(
        'warning',
        file,
        { row: spacedQuoteLine },
        'csv.spaceBeforeQuote',
        `Row ${spacedQuoteLine} (the first such row) has a space between a delimiter and a cell's opening quote (as in a, "b, c"); the cell was read as quoted text, so a delimiter inside it did not split it.`,
      ),
    );
  }
  if (short.length > 0) {
    fileProblems.push(
      problem(
        'warning',
        file,
        { row: short[0]! },
        'csv.missingCells',
        `${listRows(short)} ha${short.length === 1 ? 's' : 've'} fewer cells than the header's ${headerCells.length}, so the last columns were read as empty (a row cut short, or a line break inside a cell that is not quoted?).`,
      ),
    );
  }
  return { ...reportBase, rowsRead, orders: [], orderCount, invalidCount, fileProblems };
}

/** Headers EPR and pharmacy exports give one cell holding a whole name ('Patient Name': 'Example, Alex'). */
const FULL_NAME_HEADERS = new Set([
  'name',
  'patient',
  'patientname',
  'patientsname',
  'nameofpatient',
  'fullname',
  'patientfullname',
  'customername',
  'clientname',
]);

/** A whole-name column where a suggested mapping found neither first name nor surname. */
function fullNameColumn(profile: MappingProfile, headerCells: readonly string[]): string | undefined {
  if (profile.columns.firstName !== undefined || profile.columns.surname !== undefined) return undefined;
  const mapped = new Set(Object.values(profile.columns));
  return headerCells.find(
    (cell) => !mapped.has(cell) && FULL_NAME_HEADERS.has(cell.toLowerCase().replace(/[^a-z]/g, '')),
  );
}

const CSV_REASONS: Record<HeaderChoice['via'], (name: string) => string> = {
  explicit: (name) => `profile ${quote(name)} was chosen for this import`,
  fingerprint: (name) => `profile ${quote(name)} was chosen for this file's header`,
  template: () => 'the header is the Rx Batch template',
  suggested: () => 'no saved profile fits this header: the columns were matched by their names',
};

/** How a CSV's profile was chosen, for the report. */
function csvProfileChoice(via: HeaderChoice['via'], name: string): ProfileChoice {
  return { via: via === 'fingerprint' ? 'header' : via, reason: CSV_REASONS[via](name) };
}

/**
 * A cell no header holds but a patient's row does: a date, a long number (a phone, an NHS number, a dm+d code) or an
 * address. A row offered as the header is saved with the profile made from it, so a file with no header at all
 * (its first row a patient's) is offered none.
 */
const DATA_CELL = /\d{4,}|\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}|@/;
/** What `profiles.save` takes as header cells (the contract's bounds). */
const MAX_CANDIDATE_CELLS = 500;
const MAX_CANDIDATE_CELL_LENGTH = 200;

/** The row the admin may map as the header of a file in which none was found (the Import screen's mapping step). */
function candidateOf(records: readonly SampleRecord[] | undefined): Pick<ImportReport, 'candidateHeader'> {
  const row = records && candidateHeaderRow(records);
  if (!row || row.cells.length > MAX_CANDIDATE_CELLS) return {};
  const cells = row.cells.map(restoreCell);
  if (cells.some((cell) => cell.length > MAX_CANDIDATE_CELL_LENGTH || DATA_CELL.test(cell))) return {};
  return { candidateHeader: { row: row.line, cells } };
}
