import { basename } from 'node:path';
import { importCsv } from './csv-import.js';
import { inspectFile } from './file-source.js';
import type { OrderSink } from './finish-order.js';
import { importHl7 } from './hl7-import.js';
import type { ImportOptions, ImportReport, ImportedOrder } from './types.js';

// 0x0B is MLLP's start-of-message byte: matching that control character is the point.
/* eslint-disable no-control-regex */
const HL7_START = /^[\s\ufeff\x0b]*(?:MSH|FHS|BHS)[^A-Za-z0-9\s]/;
const SEGMENT_START = /^[\s\ufeff\x0b]*[A-Z][A-Z0-9]{2}\|/;
const LATER_MSH = /[\r\n]\x0b?MSH[^A-Za-z0-9\s]/;
/* eslint-enable no-control-regex */

/**
 * HL7 when the text starts (after any BOM, white space or MLLP start byte) with an MSH, FHS or BHS segment, or
 * with some other segment and an MSH segment follows on a later line (stray segments are reported, not fatal).
 */
export function looksLikeHl7(sample: string): boolean {
  const start = sample.slice(0, 200);
  if (HL7_START.test(start)) return true;
  return SEGMENT_START.test(start) && LATER_MSH.test(sample.slice(0, 8192));
}

/**
 * Imports a CSV or HL7 file (told apart by content, not by name) into validated create-with-clinic orders.
 * Never throws for a bad file: what is wrong with the file as a whole is in `fileProblems`, what is wrong with an
 * order is in its `problems`. Throws only for I/O failures and when `signal` aborts.
 */
export async function importFile(path: string, options: ImportOptions): Promise<ImportReport> {
  const file = options.fileLabel ?? basename(path);
  const inspected = await inspectFile(path, file, options.encoding, options.signal);
  if (!inspected.ok) {
    return {
      file: path,
      format: 'csv',
      encoding: inspected.encoding,
      encodingDetected: !options.encoding,
      rowsRead: 0,
      orders: [],
      orderCount: 0,
      invalidCount: 0,
      fileProblems: [inspected.problem],
    };
  }
  const inspection = inspected.inspection;
  const orders: ImportedOrder[] = [];
  const sink: OrderSink = options.onOrder ?? ((order) => void orders.push(order));
  const report = looksLikeHl7(inspection.sample)
    ? await importHl7(path, file, inspection, options, sink)
    : await importCsv(path, file, inspection, options, sink);
  const fileProblems = inspection.warning ? [inspection.warning, ...report.fileProblems] : report.fileProblems;
  return { ...report, fileProblems, orders };
}
