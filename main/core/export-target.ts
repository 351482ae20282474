import { once } from 'node:events';
import type { WriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { ContractError } from '../../shared/errors.js';
import {
  ExportFileRefused,
  newExportDownload,
  privateWriteStream,
  type ExportFormat,
} from './platform/export-files.js';
import type { DesktopIntegration } from './desktop-handlers.js';

/** What an export needs to know about where it may go. */
export interface ExportDeps {
  dataDir: string;
  /** The desktop shell: exports go where the admin chooses in its native save dialog. */
  desktop?: DesktopIntegration;
}

/** A file an export writes: one the admin chose, or (`downloadId`) a private one-time download for the page. */
export interface ExportTarget {
  path: string;
  downloadId?: string;
}

/** What browser mode's download route takes as a file name (main/bridge/export-downloads.ts). */
const DOWNLOAD_NAME = /^[\w.-]{1,100}$/;

/**
 * `suggested` as a download's file name: characters other than letters, digits, `.`, `_` and `-` become `-`, and
 * it is cut to 100 characters keeping its extension (a clinic's file name may hold anything).
 */
export function downloadFileName(suggested: string, format: ExportFormat): string {
  const extension = `.${format}`;
  const base = suggested.endsWith(extension) ? suggested.slice(0, -extension.length) : suggested;
  const name = `${base.replace(/[^\w.-]/g, '-').slice(0, 100 - extension.length) || 'export'}${extension}`;
  return DOWNLOAD_NAME.test(name) ? name : `export${extension}`;
}

/**
 * Where an export goes: in the desktop app the path the admin chose in the native save dialog (null when closed;
 * the page never names a path), elsewhere a new private download file that browser mode's bridge streams once.
 */
export async function chooseExportTarget(
  deps: ExportDeps,
  suggestedName: string,
  format: ExportFormat,
): Promise<ExportTarget | null> {
  if (deps.desktop) {
    const path = await deps.desktop.chooseSavePath({ suggestedName, format });
    return path === null ? null : { path };
  }
  const download = newExportDownload(deps.dataDir, format);
  return { path: download.path, downloadId: download.id };
}

/**
 * Writes `chunks` to the target (private, created anew for a download), waiting for the disk when it falls behind
 * and giving the core's loop a turn between chunks, so a big export holds neither memory nor other calls. Nothing
 * half-written is left when it fails.
 */
export async function writeExport(
  target: ExportTarget,
  chunks: Iterable<string>,
  options: { bom?: boolean } = {},
): Promise<void> {
  const out = await openExportStream(target);
  const failed = new Promise<never>((_, reject) => out.once('error', reject));
  failed.catch(() => undefined);
  try {
    if (options.bom) out.write('\ufeff');
    for (const chunk of chunks) {
      if (!out.write(chunk)) await Promise.race([once(out, 'drain'), failed]);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    out.end();
    await Promise.race([once(out, 'finish'), failed]);
  } catch (error) {
    out.destroy();
    // What the export wrote goes (it was opened as this user's own file with no other name).
    await rm(target.path, { force: true }).catch(() => undefined);
    throw error;
  }
}

/**
 * The target's file, open and private (platform/export-files.ts openExportFile). A link, FIFO, second name or file of
 * another user's planted at the name chosen in the save dialog is refused with a sentence, before anything in it
 * changes, as the CLI's exports are (docs/security.md, finding 63).
 */
export async function openExportStream(target: ExportTarget): Promise<WriteStream> {
  try {
    return await privateWriteStream(target.path, { exclusive: target.downloadId !== undefined });
  } catch (error) {
    if (error instanceof ExportFileRefused) throw new ContractError({ code: 'forbidden', message: error.message });
    throw error;
  }
}
