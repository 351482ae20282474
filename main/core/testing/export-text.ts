import { readFileSync, rmSync } from 'node:fs';
import type { CallInput, CallOutput, RxBatchApi } from '../../../shared/contract.js';
import { exportDownloadPath } from '../platform/export-files.js';

type Downloaded<Name extends ExportCall> = Extract<CallOutput<Name>, { outcome: 'download' }>;
type ExportCall = 'log.export' | 'batches.exportErrors' | 'batches.exportTemplate';

/**
 * An export through the contract without a desktop (as browser mode and direct calls make it): its text, read from
 * the one-time download file the core wrote, which is then removed as the bridge would. `bom` says whether the file
 * began with a UTF-8 BOM (taken off `text`).
 */
export async function exportText<Name extends ExportCall>(
  api: RxBatchApi,
  name: Name,
  input: CallInput<Name>,
): Promise<Downloaded<Name> & { text: string; bom: boolean }> {
  const result = (await api.call(name, input)) as CallOutput<Name>;
  if (result.outcome !== 'download') throw new Error(`expected a download, got ${result.outcome}`);
  const download = result as Downloaded<Name>;
  const { dataDir } = await api.call('app.info', {});
  const path = exportDownloadPath(dataDir, download.downloadId, download.format);
  if (!path) throw new Error('the download id is not one the app makes');
  const raw = readFileSync(path, 'utf8');
  rmSync(path);
  const bom = raw.startsWith('\ufeff');
  return { ...download, text: bom ? raw.slice(1) : raw, bom };
}

/** `log.export` as text (exportText). */
export const exportLogText = (api: RxBatchApi, input: CallInput<'log.export'>) => exportText(api, 'log.export', input);
