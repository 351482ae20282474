import { isUtf8 } from 'node:buffer';
import iconv from 'iconv-lite';
import { detectTextEncoding } from '../../../shared/encoding-sniff.js';
import type { ImportReport, ImportedOrder } from '../model/imported-order.js';
import type { OrderExtras } from '../model/provenance-table.js';
import type { Inspection } from './file-source.js';
import { importHl7 } from './hl7-import.js';
import { problem } from './problems.js';

/**
 * One HL7 message held in memory (an MLLP frame, main/core/intake/) through the same HL7 import as a file: the
 * encoding told from the bytes and MSH-18 as for a file, then the same splitter, profile choice by sender, field
 * map and validation. No file and no store: the intake decides its ACK from what this finds, before it writes
 * anything.
 */

export type MessageImportOptions = Omit<Parameters<typeof importHl7>[3], 'onOrder' | 'encoding' | 'fileLabel'>;

export interface ImportedMessage {
  report: ImportReport;
  /** Every entry the message became (one order or cancel; an entry with its problem when it cannot be one). */
  orders: Array<{ order: ImportedOrder; extras: OrderExtras | undefined }>;
}

export async function importHl7Message(
  bytes: Buffer,
  file: string,
  options: MessageImportOptions,
): Promise<ImportedMessage> {
  let validUtf8: boolean | undefined;
  const verdict = await detectTextEncoding(bytes, { whole: true, isUtf8: () => (validUtf8 = isUtf8(bytes)) });
  if ('refused' in verdict) {
    return {
      report: {
        file,
        format: 'hl7',
        encoding: verdict.encoding,
        encodingDetected: true,
        rowsRead: 0,
        orders: [],
        orderCount: 0,
        invalidCount: 0,
        fileProblems: [problem('error', file, {}, verdict.refused.code, verdict.refused.text)],
      },
      orders: [],
    };
  }
  // Bytes found to be valid UTF-8 with no BOM (a BOM is told before validity is asked) decode the same either way;
  // Buffer's own decoder skips iconv's decoder set-up, once per message.
  const text =
    verdict.encoding === 'utf-8' && validUtf8 === true ? bytes.toString('utf8') : iconv.decode(bytes, verdict.encoding);
  const inspection: Inspection = {
    totalBytes: bytes.length,
    textBytes: bytes.length,
    encoding: verdict.encoding,
    encodingDetected: true,
    sample: text,
    whole: true,
    warnings: verdict.warnings.map((warning) => problem('warning', file, {}, 'hl7.characterSet', warning)),
  };
  const orders: ImportedMessage['orders'] = [];
  const report = await importHl7(
    { path: file, text: [text] },
    file,
    inspection,
    { ...options, fileLabel: file },
    (order, extras) => void orders.push({ order, extras }),
  );
  const fileProblems =
    inspection.warnings.length > 0 ? [...inspection.warnings, ...report.fileProblems] : report.fileProblems;
  return { report: { ...report, fileProblems }, orders };
}
