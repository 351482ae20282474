import { DOWNLOAD_PATH_PREFIX } from '../../shared/log-contract.js';

/**
 * Starts the browser's download of an export the core wrote (browser mode: the log, a batch's errors or template):
 * a same-origin link to the bridge, which streams the file from disk once. Nothing of it passes through this
 * page's memory.
 */
export function startExportDownload(download: { downloadId: string; format: 'csv' | 'jsonl'; fileName: string }): void {
  const link = document.createElement('a');
  link.href = `${DOWNLOAD_PATH_PREFIX}${download.downloadId}.${download.format}?name=${encodeURIComponent(download.fileName)}`;
  link.download = download.fileName;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
}
