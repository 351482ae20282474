import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { AuditFilter } from '../store/audit-repo.js';
import type { Store } from '../store/store.js';
import { AUDIT_DETAIL_KEYS } from '../model/audit-details.js';
import { toAuditEntry, type AuditEntry } from '../model/audit-entry.js';
import { csvRow } from './csv-cell.js';
import { maskFileName, maskIdentifier, maskIdentifierIn } from './mask-identifier.js';

export interface AuditExportOptions {
  format: 'csv' | 'jsonl';
  /**
   * Show clinic order ids and file names in full. Default false: ids masked to their last three characters, file
   * names to their extension.
   */
  unmask?: boolean;
  /** Entries per read; the connection is free between reads. */
  pageSize?: number;
  /** Only the entries the log screen shows with these filters (oldest first, like the whole log). */
  filter?: AuditFilter;
  /** After each page: entries written so far. */
  onProgress?(written: number): void;
  /** Stops the export between pages; it then rejects with the signal's reason. */
  signal?: AbortSignal;
}

const CSV_HEADER = [
  'seq',
  'at',
  'actor',
  'action',
  'environment_id',
  'batch_id',
  'order_id',
  'clinic_code',
  'clinic_order_id',
  ...AUDIT_DETAIL_KEYS,
  'prev_hash',
  'hash',
];

/**
 * Writes the audit log to `out` as CSV or JSON Lines and ends it; resolves with the number of entries. Streamed:
 * entries are read a page at a time and written with backpressure, never built into one string. The export is
 * a snapshot: entries appended while it runs are not included.
 */
export async function exportAuditLog(
  store: Store,
  out: Writable,
  options: AuditExportOptions,
): Promise<{ count: number }> {
  let count = 0;
  const upToSeq = store.audit.lastSeq();
  const pageSize = options.pageSize ?? 500;
  const render = options.format === 'csv' ? csvLine : jsonLine;
  const mask = !options.unmask;

  async function* lines(): AsyncGenerator<string> {
    if (options.format === 'csv') yield csvRow(CSV_HEADER);
    let afterSeq = 0;
    const filter = options.filter;
    const filtered = filter !== undefined && Object.values(filter).some((value) => value !== undefined);
    for (;;) {
      options.signal?.throwIfAborted();
      const rows = filtered
        ? store.audit.filteredPage(filter, afterSeq, pageSize, upToSeq)
        : store.audit.page(afterSeq, pageSize, upToSeq);
      if (rows.length === 0) return;
      // One chunk per page: the stream asks for the next page only when the destination has taken this one.
      let chunk = '';
      for (const row of rows) {
        const entry = toAuditEntry(row);
        chunk += render(mask ? masked(entry) : entry);
        afterSeq = row.seq;
      }
      count += rows.length;
      yield chunk;
      options.onProgress?.(count);
      // Let other work (the submitter) use the connection between pages.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  await pipeline(Readable.from(lines(), { highWaterMark: 1 }), out, options.signal ? { signal: options.signal } : {});
  return { count };
}

/**
 * Masks the clinic order id (also wherever a detail quotes it, as a service message can) and the file name
 * (`fileName`, the one detail that holds one; also where the free-text `errorMessage` quotes it).
 */
function masked(entry: AuditEntry): AuditEntry {
  const id = entry.clinicOrderId;
  const fileName = typeof entry.details.fileName === 'string' ? entry.details.fileName : '';
  if ((id === null || id === '') && fileName === '') return entry;
  const details: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(entry.details)) {
    if (typeof value !== 'string') details[key] = value;
    else if (key === 'fileName') details[key] = maskFileName(value);
    else {
      let text = fileName && key === 'errorMessage' ? value.replaceAll(fileName, maskFileName(fileName)) : value;
      if (id) text = maskIdentifierIn(text, id);
      details[key] = text;
    }
  }
  return { ...entry, clinicOrderId: id === null ? null : maskIdentifier(id), details: details };
}

function csvLine(entry: AuditEntry): string {
  return csvRow([
    entry.seq,
    entry.at,
    entry.actor,
    entry.action,
    entry.environmentId,
    entry.batchId,
    entry.orderId,
    entry.clinicCode,
    entry.clinicOrderId,
    ...AUDIT_DETAIL_KEYS.map((key) => entry.details[key]),
    entry.prevHash,
    entry.hash,
  ]);
}

function jsonLine(entry: AuditEntry): string {
  return `${JSON.stringify(entry)}\n`;
}
