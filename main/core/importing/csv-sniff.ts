import { CsvRecordSplitter, parseBatch } from './csv-records.js';
import { TEMPLATE_COLUMNS } from '../model/field-catalogue.js';
import { TEMPLATE_PROFILE, headerFingerprint, normaliseHeader, type MappingProfile } from '../model/mapping-profile.js';
import { knownHeaderColumns, suggestMapping } from './suggest-mapping.js';

/** Works out the delimiter, the header row and the mapping profile from the first records of a file. */

export const DELIMITERS = [',', ';', '\t', '|'] as const;
const SNIFF_RECORDS = 50;
/** A header row must name at least this many known fields (fewer for a profile with fewer columns). */
export const MIN_HEADER_FIELDS = 3;

export interface SampleRecord {
  line: number;
  text: string;
  cells: string[];
}

/** The first records of the sample, parsed with one delimiter. */
export function sampleRecords(
  sample: string,
  whole: boolean,
  delimiter: string,
  limit = SNIFF_RECORDS,
): SampleRecord[] {
  const splitter = new CsvRecordSplitter(delimiter, Number.MAX_SAFE_INTEGER);
  const batches = [splitter.push(sample), whole ? splitter.end() : undefined];
  const out: SampleRecord[] = [];
  for (const batch of batches) {
    if (!batch) continue;
    const { rows } = parseBatch(batch, delimiter);
    rows.forEach((cells, i) => out.push({ line: batch.lines[i]!, text: batch.records[i]!, cells }));
  }
  return out.slice(0, limit);
}

/**
 * The delimiter under which most sample rows have the same number of fields (more than one). Title rows above the
 * header do not disturb it; a tie goes to the delimiter giving more fields, then to the order comma, semicolon,
 * tab, pipe.
 */
export function sniffDelimiter(sample: string, whole: boolean): string {
  let best: { delimiter: string; score: number; fields: number } = { delimiter: ',', score: 0, fields: 0 };
  for (const delimiter of DELIMITERS) {
    const counts = new Map<number, number>();
    for (const record of sampleRecords(sample, whole, delimiter)) {
      if (record.cells.length > 1) counts.set(record.cells.length, (counts.get(record.cells.length) ?? 0) + 1);
    }
    for (const [fields, score] of counts) {
      if (score > best.score || (score === best.score && fields > best.fields)) best = { delimiter, score, fields };
    }
  }
  return best.delimiter;
}

export interface HeaderChoice {
  record: SampleRecord;
  profile: MappingProfile;
  /** How it was chosen, for the report. */
  via: 'explicit' | 'fingerprint' | 'template' | 'suggested';
  /** How many of the header's cells name a field (or a profile column): the strength of the match. */
  strength: number;
}

/**
 * Fields only an order names: a row naming three known fields but none of these (a list of countries: Country,
 * CurrencyCode, Phone; a list of patients: First, Last, Birthdate, Address) is not an order file's header, and the
 * file is refused as having none rather than staged as hundreds of orders with nothing of an order in them. An order
 * file names its orders or what they prescribe; a patient's name or birth date alone does not make one.
 */
const ORDER_FIELDS: ReadonlySet<string> = new Set([
  'clinicOrderId',
  'dmdCode',
  'productId',
  'medication',
  'dosageInstructions',
]);

const isTemplateHeader = (cells: string[]): boolean => {
  const template = new Set(TEMPLATE_COLUMNS.map(normaliseHeader));
  const named = cells.map(normaliseHeader).filter(Boolean);
  return named.length >= MIN_HEADER_FIELDS && named.every((cell) => template.has(cell));
};

export function findHeader(
  records: SampleRecord[],
  explicit: MappingProfile | undefined,
  saved: readonly MappingProfile[],
): HeaderChoice | undefined {
  if (explicit) {
    const wanted = new Set(Object.values(explicit.columns).map(normaliseHeader));
    const needed = Math.min(MIN_HEADER_FIELDS, wanted.size);
    const matches = (r: SampleRecord) => r.cells.filter((cell) => wanted.has(normaliseHeader(cell))).length;
    const record = records.find((r) => needed > 0 && matches(r) >= needed);
    return record ? { record, profile: explicit, via: 'explicit', strength: matches(record) } : undefined;
  }
  for (const record of records) {
    const fingerprint = headerFingerprint(record.cells);
    const match = saved.find((profile) => profile.headerFingerprint === fingerprint);
    if (match) return { record, profile: match, via: 'fingerprint', strength: record.cells.length };
    const known = knownHeaderColumns(record.cells);
    if (known.size >= MIN_HEADER_FIELDS && [...known].some((column) => ORDER_FIELDS.has(column))) {
      return isTemplateHeader(record.cells)
        ? { record, profile: TEMPLATE_PROFILE, via: 'template', strength: known.size }
        : { record, profile: suggestMapping(record.cells), via: 'suggested', strength: known.size };
    }
  }
  return undefined;
}

/**
 * The row to offer as the header of a file in which none was found: the first of the most common width (of two
 * cells or more) among the sample's records, so title rows above it are passed over; undefined when no row has two.
 */
export function candidateHeaderRow(records: readonly SampleRecord[]): SampleRecord | undefined {
  const widths = new Map<number, number>();
  for (const record of records) {
    if (record.cells.length > 1) widths.set(record.cells.length, (widths.get(record.cells.length) ?? 0) + 1);
  }
  let width = 0;
  for (const [cells, count] of widths) if (count > (widths.get(width) ?? 0)) width = cells;
  return records.find((record) => record.cells.length === width && record.cells.some((cell) => cell.trim() !== ''));
}

export interface Layout {
  delimiter: string;
  header: HeaderChoice | undefined;
}

/**
 * The delimiter is the one under which a header row is found, naming the most fields (a header is far stronger
 * evidence than counting separators, which text full of semicolons can fool in a short file); when no delimiter
 * gives a header, the consistency count of sniffDelimiter decides, for the error message's sake.
 */
export function chooseLayout(
  sample: string,
  whole: boolean,
  explicit: MappingProfile | undefined,
  saved: readonly MappingProfile[],
): Layout {
  let best: Layout | undefined;
  for (const delimiter of DELIMITERS) {
    const header = findHeader(sampleRecords(sample, whole, delimiter), explicit, saved);
    if (header && (!best?.header || header.strength > best.header.strength)) best = { delimiter, header };
  }
  return best ?? { delimiter: sniffDelimiter(sample, whole), header: undefined };
}
