import type { Dirent, Stats } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { basename, isAbsolute, join } from 'node:path';
import type { ImportFiles, SkippedFile } from '../../shared/desktop-contract.js';
import { isImportFile } from './launch-files.js';
import { whyUnreadable } from '../core/platform/file-access.js';

/**
 * Paths the operating system handed over (an open dialog, the command line, a second launch, macOS `open-file`),
 * turned into files to import. Such a path is trusted only as something to read: it must exist and be a regular
 * CSV/HL7 file, or a folder, whose own CSV/HL7 files are taken (not those in folders inside it). Everything else
 * is passed over with a reason the admin can read, by name only.
 */

/** At most this many files per hand-over (a folder of thousands is not imported by accident). */
export const MAX_IMPORT_FILES = 100;

async function statOf(path: string): Promise<Stats | { error: unknown }> {
  try {
    return await stat(path);
  } catch (error) {
    return { error };
  }
}

class Collector {
  readonly paths: string[] = [];
  readonly skipped: SkippedFile[] = [];
  #over = 0;

  add(path: string): void {
    if (this.paths.includes(path)) return;
    if (this.paths.length < MAX_IMPORT_FILES) this.paths.push(path);
    else this.#over += 1;
  }

  skip(name: string, reason: string): void {
    this.skipped.push({ name, reason });
  }

  result(): ImportFiles {
    const skipped = [...this.skipped];
    if (this.#over > 0) {
      const files = this.#over === 1 ? '1 more file' : `${this.#over} more files`;
      skipped.push({ name: files, reason: `at most ${MAX_IMPORT_FILES} files are imported at a time` });
    }
    return { paths: [...this.paths], skipped };
  }
}

/** A file found in a folder (symbolic links followed, as the file manager shows them). */
async function addFolderEntry(folder: string, entry: Dirent, found: Collector): Promise<void> {
  const path = join(folder, entry.name);
  const info = entry.isFile() || entry.isDirectory() ? entry : await statOf(path);
  if ('error' in info) found.skip(entry.name, whyUnreadable(info.error));
  else if (info.isDirectory())
    found.skip(entry.name, 'a folder: only the files directly in the chosen folder are imported');
  else if (!info.isFile()) found.skip(entry.name, 'not a regular file');
  else if (!isImportFile(entry.name)) found.skip(entry.name, 'not a CSV or HL7 file');
  else found.add(path);
}

async function addFolder(folder: string, found: Collector): Promise<void> {
  let entries: Dirent[];
  try {
    entries = await readdir(folder, { withFileTypes: true });
  } catch (error) {
    found.skip(basename(folder), whyUnreadable(error));
    return;
  }
  const before = found.paths.length;
  // Hidden files (.DS_Store, editors' lock files) are never batches and would only add noise.
  const visible = entries
    .filter((entry) => !entry.name.startsWith('.'))
    .sort((a, b) => a.name.localeCompare(b.name, 'en', { numeric: true }));
  for (const entry of visible) await addFolderEntry(folder, entry, found);
  if (found.paths.length === before && visible.every((entry) => !isImportFile(entry.name))) {
    found.skip(basename(folder), 'a folder with no CSV or HL7 files in it');
  }
}

/** The regular CSV/HL7 files among `paths` (folders expanded one level), and what was passed over and why. */
export async function importFilesAt(paths: readonly string[]): Promise<ImportFiles> {
  const found = new Collector();
  for (const path of paths) {
    const name = basename(path) || path;
    if (!isAbsolute(path)) {
      found.skip(name, 'not a full path');
      continue;
    }
    const info = await statOf(path);
    if ('error' in info) found.skip(name, whyUnreadable(info.error));
    else if (info.isDirectory()) await addFolder(path, found);
    else if (!info.isFile()) found.skip(name, 'not a regular file');
    else if (!isImportFile(path)) found.skip(name, 'not a CSV or HL7 file');
    else found.add(path);
  }
  return found.result();
}
