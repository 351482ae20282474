import { basename } from 'node:path';
import type { BatchExport } from '../../../shared/staging-contract.js';
import { chooseExportTarget, downloadFileName, writeExport, type ExportDeps } from '../export-target.js';
import type { StagingService } from './staging-service.js';

/** `orders.csv` → `orders-errors.csv`: what the admin is offered to save an export of that batch as. */
export function batchExportName(sourceFileName: string, suffix: 'errors' | 'template'): string {
  const base = sourceFileName.replace(/\.[^.]*$/, '') || 'batch';
  return downloadFileName(`${base}-${suffix}.csv`, 'csv');
}

/**
 * A batch's error export (its invalid orders' own rows and an `errors` column) or template export, written a page
 * at a time to where the admin saves it (desktop) or to a one-time download (browser mode): never one text, in the
 * core or across the transport, however big the batch. A UTF-8 BOM first, as the CLI writes it, so Excel on Windows
 * opens names like Zoë as written; the importer takes it off again. The export is audited once it is all written
 * (StagingService's generators record it when their last chunk is taken).
 */
export async function exportBatch(
  staging: StagingService,
  deps: ExportDeps,
  batchId: number,
  kind: 'errors' | 'template',
): Promise<BatchExport> {
  const batch = staging.batch(batchId);
  const suggested = batchExportName(batch.sourceFileName, kind);
  const target = await chooseExportTarget(deps, suggested, 'csv');
  if (target === null) return { outcome: 'cancelled' };
  const counts = { orders: 0, rows: 0 };
  const chunks = kind === 'errors' ? staging.errorCsv(batchId, counts) : staging.templateCsv(batchId, counts);
  await writeExport(target, chunks, { bom: true });
  const written = { orders: counts.orders, rows: counts.rows };
  return target.downloadId !== undefined
    ? { outcome: 'download', ...written, fileName: suggested, format: 'csv', downloadId: target.downloadId }
    : { outcome: 'saved', ...written, fileName: basename(target.path) };
}
