import { FIELDS, fieldByColumn, itemPath } from '../model/field-catalogue.js';
import { codeField, codeItem, codeSource, type ProvenanceEntries } from '../model/provenance-table.js';
import type { Provenance } from '../model/imported-order.js';
import type { StagedOrderSource, StagedProvenance } from './staged-order-types.js';

/**
 * How a staged order's provenance is stored: compactly, since written plainly it would be the biggest part of a
 * staged row (about 45 entries an order, 3.5 KB as plain JSON: for 50,000 orders 175 MB to write). What the entries
 * of one order repeat is left out and restored on reading: the file name (the order's own), the body path (a field
 * number, see V2_COLUMNS, and an item index), a CSV column named like the template column of its field, the HL7
 * message number (the order's own) and segment text (an index into the order's original message). Version 2:
 *
 * `{ "v": 2, "c": { row: "0-26,41-45.0" }, "n": { row: { token: column } }, "h": { token: "RXE-2.1@3" },
 *    "k": { token: [profile, 0 | column] }, "e": { path: StagedProvenance } }`
 *
 * - a token is a field number, with `.item` for an item field (`41.1`: field 41 of the second item);
 * - `c`: CSV entries whose column is the template column, per row as runs of field numbers (`0-26` is fields 0 to
 *   26, `41-45.0` fields 41 to 45 of the first item);
 * - `n`: CSV entries from another column name; `h`: HL7 entries as `path@segment index`; `k`: profile constants
 *   (0: the template column of the field);
 * - `e`: everything else, whole (edits; an entry of another file or message, or naming a segment that is not in
 *   the message; a path that is not a catalogue field).
 * Version 1 (written before; still read): `{ "v": 1, "c": { row: { path: 0 | column } }, "h": { path: [message,
 * hl7Path, segmentIndex | segmentText] }, "k": { path: [profile, column] }, "e": { path: StagedProvenance } }`.
 */

/**
 * Field numbers of the stored form: the template columns in the order they had when version 2 was written. This
 * list is part of the stored data: never reorder it; a new field is appended (a test checks every field is here).
 */
export const V2_COLUMNS: readonly string[] = [
  'clinicCode',
  'clinicOrderId',
  'title',
  'firstName',
  'surname',
  'dateOfBirth',
  'gender',
  'telephone',
  'email',
  'clinicAccountNumber',
  'homeAddress1',
  'homeAddress2',
  'homeCity',
  'homeCounty',
  'homePostCode',
  'homeCountryCode',
  'deliveryAddress1',
  'deliveryAddress2',
  'deliveryCity',
  'deliveryCounty',
  'deliveryPostCode',
  'deliveryCountryCode',
  'paymentType',
  'courierCode',
  'currencyCode',
  'clinicOrderValue',
  'repeatsAllowed',
  'prescriberRegistrationNumber',
  'prescriberName',
  'clinicName',
  'clinicAddress1',
  'clinicAddress2',
  'clinicAddress3',
  'clinicAddress4',
  'clinicPostcode',
  'clinicCountryCode',
  'clinicContactNumber',
  'clinicContactEmail',
  'clinicPrescriberFeeTypeId',
  'clinicPrescriberFee',
  'affiliateId',
  'dmdCode',
  'productId',
  'medication',
  'dosageInstructions',
  'quantity',
  'pack',
];

type SourceRef = Pick<StagedOrderSource, 'file' | 'hl7' | 'message'>;

interface Encoded {
  v: 1 | 2;
  c?: Record<string, Record<string, 0 | string> | string>;
  n?: Record<string, Record<string, string>>;
  h?: Record<string, [number, string, number | string] | string>;
  k?: Record<string, [string, 0 | string]>;
  e?: Record<string, StagedProvenance>;
}

/** What a body path is in the stored form; `number` is -1 for a path that is not a catalogue field. */
interface PathInfo {
  number: number;
  /** -1 for an order field. */
  item: number;
  /** `"12"` or `"41.0"` as a JSON key. */
  token: string;
  /** The template column of its field. */
  column: string | undefined;
  /** The path as a JSON string. */
  quoted: string;
}

const NUMBER_OF_PATH = new Map<string, number>();
for (const field of FIELDS) NUMBER_OF_PATH.set(field.path, V2_COLUMNS.indexOf(field.column));
const ITEM_PATH = /^prescribedItems\.(\d{1,4})\.([A-Za-z]+)$/;

/** Paths repeat across orders (`prescribedItems.0.dmdCode`…): each is worked out once. */
const pathInfo = new Map<string, PathInfo>();
function infoOf(path: string): PathInfo {
  let info = pathInfo.get(path);
  if (info) return info;
  const item = ITEM_PATH.exec(path);
  const number = (item ? NUMBER_OF_PATH.get(`prescribedItems.*.${item[2]}`) : NUMBER_OF_PATH.get(path)) ?? -1;
  const itemIndex = item ? Number(item[1]) : -1;
  info = {
    number,
    item: itemIndex,
    token: itemIndex >= 0 ? `${number}.${itemIndex}` : String(number),
    column: number >= 0 ? V2_COLUMNS[number] : undefined,
    quoted: JSON.stringify(path),
  };
  if (pathInfo.size < 10_000) pathInfo.set(path, info);
  return info;
}

/** PathInfo by catalogue index and item index, for the importer's entries (no path lookup needed). */
const infoByField: PathInfo[][] = FIELDS.map(() => []);
function infoAt(field: number, item: number): PathInfo {
  const byItem = infoByField[field]!;
  const cached = byItem[item + 1];
  if (cached) return cached;
  const info = infoOf(item < 0 ? FIELDS[field]!.path : itemPath(field, item));
  if (item < 1000) byItem[item + 1] = info;
  return info;
}

/** The body path and template column of a field number (and item index, -1 for an order field). */
function pathOf(number: number, item: number): { path: string; column: string } | undefined {
  const column = V2_COLUMNS[number];
  const field = column === undefined ? undefined : fieldByColumn(column);
  if (!field || column === undefined) return undefined;
  if (field.level === 'item') return item >= 0 ? { path: itemPath(FIELDS.indexOf(field), item), column } : undefined;
  return item < 0 ? { path: field.path, column } : undefined;
}

/** The template-column entries of one CSV row and one item (-1: the order's own fields), as a set of field numbers. */
interface RowFields {
  row: number;
  item: number;
  /** Field numbers 0–30 and 31–61 as bits. */
  low: number;
  high: number;
}

const runText = (first: number, last: number, item: number) =>
  `${first === last ? first : `${first}-${last}`}${item >= 0 ? `.${item}` : ''}`;

/** The runs text of a set of field numbers (`0-26,28,41-45.0`); a file's orders repeat a few sets, so it is kept. */
const runsCache = new Map<number, Map<number, Map<number, string>>>();
function runsOf(low: number, high: number, item: number): string {
  let byLow = runsCache.get(item);
  if (!byLow) {
    byLow = new Map();
    if (runsCache.size < 1000) runsCache.set(item, byLow);
  }
  let byHigh = byLow.get(low);
  if (!byHigh) {
    byHigh = new Map();
    if (byLow.size < 1000) byLow.set(low, byHigh);
  }
  let text = byHigh.get(high);
  if (text === undefined) {
    const runs: string[] = [];
    let first = -1;
    for (let number = 0; number <= 62; number += 1) {
      const present = number < 31 ? (low >>> number) & 1 : number < 62 ? (high >>> (number - 31)) & 1 : 0;
      if (present && first < 0) first = number;
      else if (!present && first >= 0) {
        runs.push(runText(first, number - 1, item));
        first = -1;
      }
    }
    text = runs.join(',');
    if (byHigh.size < 1000) byHigh.set(high, text);
  }
  return text;
}

/**
 * The text of an HL7 or constant entry, built once per distinct entry: an HL7 batch repeats the same few dozen
 * (`"41.0":"RXE-2.1@3"`) in every message, and building each afresh made most of the encoder's garbage.
 */
const hl7Pieces = new Map<string, Map<string, string[]>>();
function hl7Piece(info: PathInfo, hl7Path: string, index: number): string {
  let byPath = hl7Pieces.get(info.token);
  if (!byPath) {
    byPath = new Map();
    if (hl7Pieces.size < 10_000) hl7Pieces.set(info.token, byPath);
  }
  let byIndex = byPath.get(hl7Path);
  if (!byIndex) {
    byIndex = [];
    if (byPath.size < 100) byPath.set(hl7Path, byIndex);
  }
  let piece = byIndex[index];
  if (piece === undefined) {
    piece = `"${info.token}":${JSON.stringify(`${hl7Path}@${index}`)}`;
    if (index < 1000) byIndex[index] = piece;
  }
  return piece;
}

const constantPieces = new Map<string, Map<string, string>>();
function constantPiece(info: PathInfo, profile: string, column: string): string {
  const template = column === info.column;
  if (!template) return `"${info.token}":[${JSON.stringify(profile)},${JSON.stringify(column)}]`;
  let byProfile = constantPieces.get(info.token);
  if (!byProfile) {
    byProfile = new Map();
    if (constantPieces.size < 10_000) constantPieces.set(info.token, byProfile);
  }
  let piece = byProfile.get(profile);
  if (piece === undefined) {
    piece = `"${info.token}":[${JSON.stringify(profile)},0]`;
    if (byProfile.size < 100) byProfile.set(profile, piece);
  }
  return piece;
}

/** Written as text directly: 50,000 orders × 45 entries make building objects to stringify the slow part. */
export function encodeProvenance(provenance: Record<string, StagedProvenance>, source: SourceRef): string {
  const paths = Object.keys(provenance);
  const origins = Object.values(provenance);
  return encode(paths.length, (i) => infoOf(paths[i]!), origins, undefined, undefined, source, undefined);
}

/** The same from the importer's entries (ProvenanceTable): row-number origins need no objects. */
export function encodeProvenanceEntries(entries: ProvenanceEntries, file: string, source: SourceRef): string {
  const { codes, columns } = entries;
  return encode(
    entries.count,
    (i) => infoAt(codeField(codes[i]!), codeItem(codes[i]!)),
    entries.origins,
    columns ? (i) => columns[codeSource(codes[i]!)] : undefined,
    file,
    source,
    entries.segments,
  );
}

function encode(
  count: number,
  infoOfEntry: (i: number) => PathInfo,
  origins: readonly (StagedProvenance | number)[],
  columnOf: ((i: number) => string | undefined) | undefined,
  /** What row-number origins name. */
  originFile: string | undefined,
  source: SourceRef,
  messageSegments: readonly string[] | undefined,
): string {
  const out = new EncodedText();
  let segments = messageSegments;
  for (let i = 0; i < count; i += 1) {
    const origin = origins[i]!;
    const info = infoOfEntry(i);
    if (typeof origin === 'number') {
      const column = columnOf?.(i) ?? '';
      if (info.number >= 0 && originFile === source.file) out.csv(info, origin, column);
      else out.whole(info, { kind: 'csv', file: originFile ?? source.file, row: origin, column });
    } else if (info.number < 0) {
      out.whole(info, origin);
    } else if (origin.kind === 'csv' && origin.file === source.file) {
      out.csv(info, origin.row, origin.column);
    } else if (origin.kind === 'hl7' && origin.file === source.file && origin.message === source.message) {
      segments ??= source.hl7?.split('\r') ?? [];
      const index = segments.indexOf(origin.segment);
      if (index >= 0) (out.hl7 ??= []).push(hl7Piece(info, origin.path, index));
      else out.whole(info, origin);
    } else if (origin.kind === 'constant') {
      (out.constants ??= []).push(constantPiece(info, origin.profile, origin.column));
    } else {
      out.whole(info, origin);
    }
  }
  return out.text();
}

/** The parts of one encoded provenance as they are collected (see the format above). */
class EncodedText {
  /** Per CSV row: template-column entries as runs of field numbers. An order has a row or a few: a short list beats a Map. */
  rows: RowFields[] | undefined;
  named: Map<number, string> | undefined;
  hl7: string[] | undefined;
  constants: string[] | undefined;
  wholeEntries = '';

  whole(info: PathInfo, origin: StagedProvenance): void {
    this.wholeEntries += `${this.wholeEntries ? ',' : ''}${info.quoted}:${JSON.stringify(origin)}`;
  }

  csv(info: PathInfo, row: number, column: string): void {
    // Field numbers past the two 31-bit sets (a catalogue grown that far) are written out like other columns.
    if (column !== info.column || info.number >= 62) {
      this.named ??= new Map();
      const entry = `"${info.token}":${JSON.stringify(column)}`;
      const entries = this.named.get(row);
      this.named.set(row, entries === undefined ? entry : `${entries},${entry}`);
      return;
    }
    const rows = (this.rows ??= []);
    let fields: RowFields | undefined;
    for (const r of rows) if (r.row === row && r.item === info.item) fields = r;
    if (!fields) {
      fields = { row, item: info.item, low: 0, high: 0 };
      rows.push(fields);
    }
    if (info.number < 31) fields.low |= 1 << info.number;
    else fields.high |= 1 << (info.number - 31);
  }

  text(): string {
    let out = '{"v":2';
    if (this.rows) {
      // One entry per row, its items' runs after its own (rows in the order first seen).
      let rows = '';
      const done = new Set<number>();
      for (const r of this.rows) {
        if (done.has(r.row)) continue;
        done.add(r.row);
        let text = '';
        for (const same of this.rows) {
          if (same.row === r.row) text += `${text ? ',' : ''}${runsOf(same.low, same.high, same.item)}`;
        }
        rows += `${rows ? ',' : ''}"${r.row}":"${text}"`;
      }
      out += `,"c":{${rows}}`;
    }
    if (this.named) {
      out += `,"n":{${[...this.named].map(([row, entries]) => `"${row}":{${entries}}`).join(',')}}`;
    }
    if (this.hl7) out += `,"h":{${this.hl7.join(',')}}`;
    if (this.constants) out += `,"k":{${this.constants.join(',')}}`;
    if (this.wholeEntries) out += `,"e":{${this.wholeEntries}}`;
    return `${out}}`;
  }
}

/** `"12"` → field 12 of the order; `"41.1"` → field 41 of the second item. */
function tokenPath(token: string): { path: string; column: string } | undefined {
  const dot = token.indexOf('.');
  return dot < 0 ? pathOf(Number(token), -1) : pathOf(Number(token.slice(0, dot)), Number(token.slice(dot + 1)));
}

export function decodeProvenance(text: string, source: SourceRef): Record<string, StagedProvenance> {
  const encoded = JSON.parse(text) as Encoded;
  return encoded.v === 1 ? decodeVersion1(encoded, source) : decodeVersion2(encoded, source);
}

function decodeVersion2(encoded: Encoded, source: SourceRef): Record<string, StagedProvenance> {
  const out: Record<string, StagedProvenance> = {};
  const file = source.file;
  const unreadable = (what: string) => new Error(`stored provenance names an unknown field (${what})`);
  for (const [row, runs] of Object.entries(encoded.c ?? {})) {
    if (typeof runs !== 'string') throw unreadable(row);
    for (const run of runs.split(',')) {
      const dot = run.indexOf('.');
      const item = dot < 0 ? -1 : Number(run.slice(dot + 1));
      const range = dot < 0 ? run : run.slice(0, dot);
      const dash = range.indexOf('-');
      const first = Number(dash < 0 ? range : range.slice(0, dash));
      const last = dash < 0 ? first : Number(range.slice(dash + 1));
      for (let number = first; number <= last; number += 1) {
        const at = pathOf(number, item);
        if (!at) throw unreadable(run);
        out[at.path] = { kind: 'csv', file, row: Number(row), column: at.column };
      }
    }
  }
  for (const [row, entries] of Object.entries(encoded.n ?? {})) {
    for (const [token, column] of Object.entries(entries)) {
      const at = tokenPath(token);
      if (!at) throw unreadable(token);
      out[at.path] = { kind: 'csv', file, row: Number(row), column };
    }
  }
  let segments: string[] | undefined;
  for (const [token, value] of Object.entries(encoded.h ?? {})) {
    const at = tokenPath(token);
    if (!at || typeof value !== 'string' || source.message === undefined) throw unreadable(token);
    segments ??= source.hl7?.split('\r') ?? [];
    const split = value.lastIndexOf('@');
    const segment = segments[Number(value.slice(split + 1))] ?? '';
    out[at.path] = { kind: 'hl7', file, message: source.message, path: value.slice(0, split), segment };
  }
  for (const [token, [profile, column]] of Object.entries(encoded.k ?? {})) {
    const at = tokenPath(token);
    if (!at) throw unreadable(token);
    out[at.path] = { kind: 'constant', profile, column: column === 0 ? at.column : column };
  }
  for (const [path, origin] of Object.entries(encoded.e ?? {})) out[path] = origin;
  return out;
}

const TEMPLATE_COLUMN = new Map(FIELDS.map((field) => [field.path, field.column]));

function decodeVersion1(encoded: Encoded, source: SourceRef): Record<string, StagedProvenance> {
  const out: Record<string, StagedProvenance> = {};
  const file = source.file;
  const templateColumnOf = (path: string) => TEMPLATE_COLUMN.get(path.replace(/\.\d+\./, '.*.'))!;
  for (const [row, paths] of Object.entries(encoded.c ?? {})) {
    for (const [path, column] of Object.entries(paths as Record<string, 0 | string>)) {
      out[path] = { kind: 'csv', file, row: Number(row), column: column === 0 ? templateColumnOf(path) : column };
    }
  }
  let segments: string[] | undefined;
  for (const [path, value] of Object.entries(encoded.h ?? {})) {
    const [message, hl7Path, segment] = value as [number, string, number | string];
    segments ??= source.hl7?.split('\r') ?? [];
    const text = typeof segment === 'number' ? (segments[segment] ?? '') : segment;
    out[path] = { kind: 'hl7', file, message, path: hl7Path, segment: text } satisfies Provenance;
  }
  for (const [path, [profile, column]] of Object.entries(encoded.k ?? {})) {
    out[path] = { kind: 'constant', profile, column: column as string };
  }
  for (const [path, origin] of Object.entries(encoded.e ?? {})) out[path] = origin;
  return out;
}
