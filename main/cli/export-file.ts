import type { FileHandle } from 'node:fs/promises';
import { ExportFileRefused, openExportFile as openPrivateExportFile } from '../core/platform/export-files.js';
import { InputError } from './cli-errors.js';

/**
 * Opens the file an export command writes (core/platform/export-files.ts openExportFile: no link followed, no file
 * of another user's or with a second name written into, 0600 and empty before the first byte); a refusal is the
 * admin's to fix (exit 2), said in one sentence.
 */
export async function openExportFile(path: string): Promise<FileHandle> {
  try {
    return await openPrivateExportFile(path);
  } catch (error) {
    if (error instanceof ExportFileRefused) throw new InputError(error.message);
    throw error;
  }
}
