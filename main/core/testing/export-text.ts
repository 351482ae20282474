import { readFileSync, rmSync } from 'node:fs';
import type { CallInput, CallOutput, RxBatchApi } from '../../../shared/contract.js';
import { exportDownloadPath } from '../audit/export-files.js';

type Exported = Extract<CallOutput<'log.export'>, { outcome: 'download' }>;

/**
 * `log.export` through the contract without a desktop (as browser mode and direct calls make it): the export's
 * text, read from the one-time download file the core wrote, which is then removed as the bridge would.
 */
export async function exportLogText(
  api: RxBatchApi,
  input: CallInput<'log.export'>,
): Promise<Exported & { text: string }> {
  const result = await api.call('log.export', input);
  if (result.outcome !== 'download') throw new Error(`expected a download, got ${result.outcome}`);
  const { dataDir } = await api.call('app.info', {});
  const path = exportDownloadPath(dataDir, result.downloadId, result.format);
  if (!path) throw new Error('the download id is not one the app makes');
  const text = readFileSync(path, 'utf8');
  rmSync(path);
  return { ...result, text };
}
