import { randomBytes } from 'node:crypto';
import { createWriteStream, fchmodSync, readdirSync, rmSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import { DOWNLOAD_ID_PATTERN } from '../../../shared/log-contract.js';
import { ensurePrivateDir, PRIVATE_FILE_MODE } from './private-files.js';

/**
 * Where an export waits for its one download in browser mode: `<data dir>/export-downloads/<id>.<csv|jsonl>`, in
 * the 0700 data directory, 0600 itself. The bridge host streams it once and removes it (main/bridge/); what was
 * never fetched is removed when the core starts again.
 */
export const EXPORT_DOWNLOADS_DIR = 'export-downloads';

export type ExportFormat = 'csv' | 'jsonl';

export function exportDownloadsDir(dataDir: string): string {
  return join(dataDir, EXPORT_DOWNLOADS_DIR);
}

/** The file of download `id` in `format`, or undefined when the id is not one this app makes. */
export function exportDownloadPath(dataDir: string, id: string, format: ExportFormat): string | undefined {
  if (!DOWNLOAD_ID_PATTERN.test(id)) return undefined;
  return join(exportDownloadsDir(dataDir), `${id}.${format}`);
}

/** A new download's id (256 random bits, the capability that fetches it) and its path. */
export function newExportDownload(dataDir: string, format: ExportFormat): { id: string; path: string } {
  ensurePrivateDir(exportDownloadsDir(dataDir));
  const id = randomBytes(32).toString('base64url');
  return { id, path: exportDownloadPath(dataDir, id, format)! };
}

/** Removes downloads never fetched (an export stays patient data: no copy outlives the run that made it). */
export function clearExportDownloads(dataDir: string): void {
  let names: string[];
  try {
    names = readdirSync(exportDownloadsDir(dataDir));
  } catch {
    return;
  }
  for (const name of names) rmSync(join(exportDownloadsDir(dataDir), name), { force: true });
}

/**
 * A new file, private before the first byte reaches it (the mode option covers new files only; an existing file
 * chosen in a save dialog keeps its mode otherwise). `flags: 'wx'` refuses to follow an existing file when asked.
 * A file that cannot be made private (another user's, chosen in the dialog) fails the stream with that error: it
 * was thrown from the 'open' listener before, out of reach of any handler, which ended the core.
 */
export function privateWriteStream(path: string, options: { exclusive?: boolean } = {}): WriteStream {
  const stream = createWriteStream(path, { mode: PRIVATE_FILE_MODE, flags: options.exclusive ? 'wx' : 'w' });
  return stream.once('open', (fd: number) => {
    try {
      fchmodSync(fd, PRIVATE_FILE_MODE);
    } catch (error) {
      stream.destroy(error instanceof Error ? error : new Error(String(error)));
    }
  });
}
