import { FIELDS } from '../importing/field-catalogue.js';
import type { Provenance } from '../importing/types.js';
import type { StagedOrderSource, StagedProvenance } from './staged-orders-repo.js';

/**
 * How a staged order's provenance is stored: compactly, since it is most of a staged row (about 45 entries per
 * order, 3.5 KB as plain JSON, for 50,000 orders 175 MB written twice). What every entry of an order repeats is
 * dropped and restored on reading: the file name (the order's own), a CSV column named like the template column of
 * its field, an HL7 segment's text (an index into the order's original message). Edited entries are kept as they
 * are. Version 1:
 * `{ "v": 1, "c": { row: { path: 0 | column } }, "h": { path: [message, hl7Path, segmentIndex | segmentText] },
 *    "k": { path: [profile, column] }, "e": { path: StagedProvenance } }`
 */

interface Encoded {
  v: 1;
  c?: Record<string, Record<string, 0 | string>>;
  h?: Record<string, [number, string, number | string]>;
  k?: Record<string, [string, string]>;
  e?: Record<string, StagedProvenance>;
}

/** The template column of each body path (item paths with `*`). */
const TEMPLATE_COLUMN = new Map(FIELDS.map((field) => [field.path, field.column]));
const ITEM_INDEX = /\.\d+\./;

interface PathInfo {
  /** The path as a JSON string. */
  quoted: string;
  /** The template column of its field, if it is a catalogue field. */
  column: string | undefined;
}

/** Paths repeat across orders (`prescribedItems.0.dmdCode`…): each is worked out once. */
const pathInfo = new Map<string, PathInfo>();
function infoOf(path: string): PathInfo {
  let info = pathInfo.get(path);
  if (!info) {
    info = { quoted: JSON.stringify(path), column: TEMPLATE_COLUMN.get(path.replace(ITEM_INDEX, '.*.')) };
    if (pathInfo.size < 10_000) pathInfo.set(path, info);
  }
  return info;
}
const templateColumnOf = (path: string) => infoOf(path).column;

/** Written as text directly: 50,000 orders × 45 entries make building objects to stringify the slow part. */
export function encodeProvenance(
  provenance: Record<string, StagedProvenance>,
  source: Pick<StagedOrderSource, 'file' | 'hl7'>,
): string {
  let csv: Map<number, string> | undefined;
  let hl7 = '';
  let constants = '';
  let edited = '';
  let segments: string[] | undefined;
  for (const path in provenance) {
    const origin = provenance[path]!;
    const info = infoOf(path);
    if (origin.kind === 'csv' && origin.file === source.file) {
      const entry = `${info.quoted}:${info.column === origin.column ? '0' : JSON.stringify(origin.column)}`;
      csv ??= new Map();
      const row = csv.get(origin.row);
      csv.set(origin.row, row === undefined ? entry : `${row},${entry}`);
    } else if (origin.kind === 'hl7' && origin.file === source.file) {
      segments ??= source.hl7?.split('\r') ?? [];
      const index = segments.indexOf(origin.segment);
      const segment = index >= 0 ? String(index) : JSON.stringify(origin.segment);
      hl7 += `${hl7 ? ',' : ''}${info.quoted}:[${origin.message},${JSON.stringify(origin.path)},${segment}]`;
    } else if (origin.kind === 'constant') {
      constants += `${constants ? ',' : ''}${info.quoted}:${JSON.stringify([origin.profile, origin.column])}`;
    } else {
      edited += `${edited ? ',' : ''}${info.quoted}:${JSON.stringify(origin)}`;
    }
  }
  let out = '{"v":1';
  if (csv) out += `,"c":{${[...csv].map(([row, entries]) => `"${row}":{${entries}}`).join(',')}}`;
  if (hl7) out += `,"h":{${hl7}}`;
  if (constants) out += `,"k":{${constants}}`;
  if (edited) out += `,"e":{${edited}}`;
  return `${out}}`;
}

export function decodeProvenance(
  text: string,
  source: Pick<StagedOrderSource, 'file' | 'hl7'>,
): Record<string, StagedProvenance> {
  const encoded = JSON.parse(text) as Encoded;
  const out: Record<string, StagedProvenance> = {};
  const file = source.file;
  for (const [row, paths] of Object.entries(encoded.c ?? {})) {
    for (const [path, column] of Object.entries(paths)) {
      out[path] = { kind: 'csv', file, row: Number(row), column: column === 0 ? templateColumnOf(path)! : column };
    }
  }
  let segments: string[] | undefined;
  for (const [path, [message, hl7Path, segment]] of Object.entries(encoded.h ?? {})) {
    segments ??= source.hl7?.split('\r') ?? [];
    const text = typeof segment === 'number' ? (segments[segment] ?? '') : segment;
    out[path] = { kind: 'hl7', file, message, path: hl7Path, segment: text } satisfies Provenance;
  }
  for (const [path, [profile, column]] of Object.entries(encoded.k ?? {})) {
    out[path] = { kind: 'constant', profile, column };
  }
  for (const [path, origin] of Object.entries(encoded.e ?? {})) out[path] = origin;
  return out;
}
