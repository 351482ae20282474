import { randomBytes } from 'node:crypto';
import { constants, createWriteStream, readdirSync, rmSync, type WriteStream } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
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

/** An export destination refused before anything in it changed; the message names it and says why. */
export class ExportFileRefused extends Error {}

/**
 * Opens the file an export writes, empty and 0600 before the first byte reaches it. The name is the admin's (the
 * CLI's argument, the desktop's save dialog), but the folder may be one other users write to (/tmp, a shared
 * folder), and whatever they planted there would be written through: a link to a file of the admin's (or, for
 * root, to a system file), a file of their own (root's chmod succeeds on it, and it stays theirs to read), a second
 * name of another file, or a FIFO that blocks for good. Those are refused before anything in them changes
 * (docs/security.md, findings 17 and 63). `exclusive`: the file must be new (browser mode's downloads).
 */
export async function openExportFile(path: string, options: { exclusive?: boolean } = {}): Promise<FileHandle> {
  // No O_TRUNC: nothing is emptied before it is checked. O_NONBLOCK: a FIFO without a reader fails at once.
  const flags =
    constants.O_WRONLY |
    constants.O_CREAT |
    (options.exclusive ? constants.O_EXCL : 0) |
    (constants.O_NOFOLLOW ?? 0) |
    (constants.O_NONBLOCK ?? 0);
  let handle: FileHandle;
  try {
    handle = await open(path, flags, PRIVATE_FILE_MODE);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') {
      throw new ExportFileRefused(
        `${path} is a symbolic link: an export is not written through a link; give another name`,
      );
    }
    if (code === 'ENXIO') throw new ExportFileRefused(`${path} is not a regular file; give another name`);
    throw error;
  }
  try {
    const info = await handle.stat();
    const uid = process.getuid?.();
    if (!info.isFile()) throw new ExportFileRefused(`${path} is not a regular file; give another name`);
    if (uid !== undefined && info.uid !== uid) {
      throw new ExportFileRefused(
        `${path} belongs to another user, who could read the export there (it holds patient data); give another name`,
      );
    }
    if (info.nlink > 1) {
      throw new ExportFileRefused(`${path} is also another file (it has ${info.nlink} names); give another name`);
    }
    await handle.chmod(PRIVATE_FILE_MODE);
    await handle.truncate(0);
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** An export's stream over `openExportFile`: open already (no 'open' event), closing its file when it ends. */
export async function privateWriteStream(path: string, options: { exclusive?: boolean } = {}): Promise<WriteStream> {
  const handle = await openExportFile(path, options);
  return createWriteStream(path, { fd: handle });
}
