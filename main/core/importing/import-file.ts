import { basename } from 'node:path';
import { importCsv } from './csv-import.js';
import { inspectFile } from './file-source.js';
import type { OrderSink } from './finish-order.js';
import { importHl7 } from './hl7-import.js';
import { declaresSeparators, isSegmentLine } from './hl7-stream.js';
import { openImportSource, resolveOwnPath, type ImportSource } from './import-source.js';
import type { ImportReport, ImportedOrder, Problem } from '../model/imported-order.js';
import type { ImportOptions } from '../model/import-options.js';

// 0x0B and 0x1C are MLLP's frame bytes: matching those control characters is the point.
/* eslint-disable no-control-regex */
const HL7_START = /^[\s\ufeff\x0b]*(?:MSH|FHS|BHS)[^A-Za-z0-9\s]/;
// An MLLP frame's start byte first: an MLLP capture, whatever the frame holds (no CSV starts with it).
const MLLP_START = /^[\s\ufeff]*\x0b/;
const LEADING = /^[\s\ufeff\x0b\x1c]+/;
const TRAILING_FRAMING = /[\x0b\x1c]+$/;
/* eslint-enable no-control-regex */
/** How much of the sample is searched for segment structure (the sample itself is at most 64 KiB). */
const STRUCTURE_CHARS = 64 * 1024;
const MAX_STRUCTURE_LINES = 400;

/**
 * HL7 when the text starts (after any BOM, white space or MLLP start byte) with an MSH, FHS or BHS segment, or with an
 * MLLP start byte at all; else
 * when the first 64 KiB hold one on a line of its own (comment or text lines before it, indented segments) followed
 * by more segments, at least a quarter as many as the other non-blank lines from there on (a CSV with one odd row is
 * still a CSV). Stray lines and indentation are reported by the splitter, not fatal.
 */
export function looksLikeHl7(sample: string): boolean {
  if (HL7_START.test(sample.slice(0, 200)) || MLLP_START.test(sample.slice(0, 200))) return true;
  const lines = sample.slice(0, STRUCTURE_CHARS).split(/\r\n|\r|\n/, MAX_STRUCTURE_LINES * 4);
  let separator: string | undefined;
  let segments = 0;
  let others = 0;
  for (const raw of lines) {
    const line = raw.replace(LEADING, '').replace(TRAILING_FRAMING, '');
    if (line === '') continue;
    if (separator === undefined) {
      if (declaresSeparators(line)) {
        separator = line.charAt(3);
        segments = 1;
      }
      continue;
    }
    if (isSegmentLine(line, separator)) segments += 1;
    else others += 1;
    if (segments + others >= MAX_STRUCTURE_LINES) break;
  }
  return separator !== undefined && segments >= 2 && segments * 4 >= others;
}

/** The report of a file refused as a whole before any order was read. */
export function refusedFileReport(
  path: string,
  problem: Problem,
  options: Pick<ImportOptions, 'encoding'>,
  encoding = 'unknown',
): ImportReport {
  return {
    file: path,
    format: 'csv',
    encoding,
    encodingDetected: !options.encoding,
    rowsRead: 0,
    orders: [],
    orderCount: 0,
    invalidCount: 0,
    fileProblems: [problem],
  };
}

/**
 * Imports a CSV or HL7 file (told apart by content, not by name) into validated create-with-clinic orders, for a
 * caller who is the user at their own command line (tests, benchmarks): their links are followed, then the file is
 * opened once (import-source.ts) and read as `importSource` reads it. Never throws for a bad file: what is wrong
 * with the file as a whole is in `fileProblems`, what is wrong with an order is in its `problems`. Throws only for
 * I/O failures and when `signal` aborts.
 */
export async function importFile(path: string, options: ImportOptions): Promise<ImportReport> {
  const file = options.fileLabel ?? basename(path);
  const opened = await openImportSource(await resolveOwnPath(path), file);
  if (!opened.ok) return refusedFileReport(path, opened.problem, options);
  try {
    return { ...(await importSource(opened.source, options)), file: path };
  } finally {
    await opened.source.close();
  }
}

/**
 * Imports a file already opened (import-source.ts): every read is a positional read of that one handle, which
 * stays open for the caller to close. Same report and errors as `importFile`.
 */
export async function importSource(source: ImportSource, options: ImportOptions): Promise<ImportReport> {
  const file = options.fileLabel ?? basename(source.path);
  const inspected = await inspectFile(source, file, options.encoding, options.signal);
  if (!inspected.ok) return refusedFileReport(source.path, inspected.problem, options, inspected.encoding);
  const inspection = inspected.inspection;
  const orders: ImportedOrder[] = [];
  const sink: OrderSink = options.onOrder ?? ((order) => void orders.push(order));
  const report = looksLikeHl7(inspection.sample)
    ? await importHl7(source, file, inspection, options, sink)
    : await importCsv(source, file, inspection, options, sink);
  const fileProblems =
    inspection.warnings.length > 0 ? [...inspection.warnings, ...report.fileProblems] : report.fileProblems;
  return { ...report, fileProblems, orders };
}
