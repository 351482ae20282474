import { extname, isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { IMPORT_EXTENSIONS } from '../../shared/import-files.js';

/**
 * Files the admin opened with the app (a double click on a batch, "Open with", a second launch with a path):
 * collected here until the importer takes them. A second launch hands its files to the first instance through
 * Electron's single-instance `additionalData`, which arrives as untrusted data and is parsed like any other.
 */

const MAX_LAUNCH_FILES = 100;

export const secondInstanceDataSchema = z
  .object({ files: z.array(z.string().min(1).max(4096)).max(MAX_LAUNCH_FILES) })
  .strict();
export type SecondInstanceData = z.infer<typeof secondInstanceDataSchema>;

/** Whether a file's name says it is a CSV or HL7 batch (its extension; the core checks the content). */
export function isImportFile(path: string): boolean {
  return (IMPORT_EXTENSIONS as readonly string[]).includes(extname(path).slice(1).toLowerCase());
}

/**
 * Import files named on a command line, as absolute paths. Switches (Chromium's and Electron's own, which it may
 * add or reorder) and anything that is not a CSV or HL7 file (the executable, the app's script) are skipped.
 */
export function importFilesFromArgv(argv: readonly string[], cwd: string): string[] {
  const files = argv
    .filter((arg) => !arg.startsWith('-') && isImportFile(arg))
    .map((arg) => (isAbsolute(arg) ? arg : resolve(cwd, arg)));
  return [...new Set(files)].slice(0, MAX_LAUNCH_FILES);
}

/** The files a second instance sent, or, for an instance too old or odd to send them, those on its command line. */
export function filesFromSecondInstance(argv: readonly string[], cwd: string, additionalData: unknown): string[] {
  const parsed = secondInstanceDataSchema.safeParse(additionalData);
  if (!parsed.success) return importFilesFromArgv(argv, cwd);
  return parsed.data.files.filter((file) => isAbsolute(file) && isImportFile(file));
}

export type ImportFilesHandler = (files: string[]) => void;

/**
 * A small queue between the launch paths (first launch, second launch, macOS `open-file`, the File menu) and
 * whoever imports. Files arriving before a handler is set wait for it; the handler sees each batch once.
 */
export class LaunchFiles {
  #waiting: string[] = [];
  #handler: ImportFilesHandler | undefined;

  add(files: readonly string[]): void {
    if (files.length === 0) return;
    if (this.#handler) this.#handler([...files]);
    else this.#waiting.push(...files);
  }

  /** Sets the importer; files that arrived earlier are handed over at once. Returns a function that unsets it. */
  setHandler(handler: ImportFilesHandler): () => void {
    this.#handler = handler;
    const waiting = this.#waiting;
    this.#waiting = [];
    if (waiting.length > 0) handler(waiting);
    return () => {
      if (this.#handler === handler) this.#handler = undefined;
    };
  }

  get waitingCount(): number {
    return this.#waiting.length;
  }
}
