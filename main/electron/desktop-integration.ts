import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { ChoosePurpose, ImportFiles } from '../../shared/desktop-contract.js';
import type { ConfirmQuestion, DesktopIntegration, SaveRequest } from '../core/desktop-handlers.js';
import type { Logger } from '../core/platform/logger.js';
import { importFilesAt } from './import-paths.js';
import type { PathGrants } from './path-grants.js';

/**
 * What the desktop adds to the core (`files.choose`, `import.takeRequested`, `app.openDataFolder`), with
 * Electron passed in as functions, so it is tested without Electron. Every path the OS hands over is checked
 * (`importFilesAt`) and then granted for `import.file`; only counts are logged, never names or folders.
 */

export interface DesktopShellDeps {
  /** The native open dialog: the chosen files, or the one chosen folder; empty when the admin cancels. */
  showOpenDialog(purpose: ChoosePurpose): Promise<string[]>;
  /** The native confirmation of the core's question (dialogs.ts askConfirm): true when the admin went ahead. */
  confirm(question: ConfirmQuestion): Promise<boolean>;
  /** The native save dialog for an export (dialogs.ts chooseSavePath): a path, or null when cancelled. */
  showSaveDialog(request: SaveRequest): Promise<string | null>;
  /** Electron's `shell.openPath`: an empty string, or why the path could not be opened. */
  openPath(path: string): Promise<string>;
  dataDir: string;
  grants: PathGrants;
  /** Files are waiting for the page: emit `import.requested` and bring the window forward. */
  announce(files: number): void;
  logger: Logger;
}

/** The log line of each confirmation, as each had before they shared one request. */
const CONFIRM_LOG: Record<ConfirmQuestion['kind'], string> = {
  'identity-change': 'environment re-point',
  removal: 'environment removal',
  retention: 'shorter retention',
  'binding-change': 'sender binding loosened',
};

/** At most this many files (to import or explained) wait for the page; `import.takeRequested` carries no more. */
const MAX_WAITING = 1000;

export class DesktopShell implements DesktopIntegration {
  readonly #deps: DesktopShellDeps;
  #waiting: ImportFiles = { paths: [], skipped: [] };

  constructor(deps: DesktopShellDeps) {
    this.#deps = deps;
  }

  async chooseFiles(purpose: ChoosePurpose): Promise<ImportFiles> {
    const chosen = await this.#deps.showOpenDialog(purpose);
    if (purpose === 'intake-folder') return this.#intakeFolder(chosen);
    const files = await importFilesAt(chosen);
    this.#deps.grants.add(files.paths, 'import');
    if (chosen.length > 0) this.#log('files chosen for import', files);
    return files;
  }

  /** A folder to watch: itself granted for `intake.start` only, its files not (the intake reads them as they come). */
  async #intakeFolder(chosen: string[]): Promise<ImportFiles> {
    const [folder] = chosen;
    if (folder === undefined) return { paths: [], skipped: [] };
    const isFolder = await stat(folder).then(
      (info) => info.isDirectory(),
      () => false,
    );
    if (!isFolder) return { paths: [], skipped: [{ name: basename(folder), reason: 'It is not a folder.' }] };
    this.#deps.grants.add([folder], 'watch');
    this.#deps.logger.info('folder chosen for intake', { folders: 1 });
    return { paths: [folder], skipped: [] };
  }

  async confirm(question: ConfirmQuestion): Promise<boolean> {
    const confirmed = await this.#deps.confirm(question);
    // The kind and the answer only: the wording names environments, senders and counts.
    this.#deps.logger.info(CONFIRM_LOG[question.kind], { confirmed });
    return confirmed;
  }

  async chooseSavePath(request: SaveRequest): Promise<string | null> {
    const path = await this.#deps.showSaveDialog(request);
    this.#deps.logger.info('export destination', { chosen: path !== null });
    return path;
  }

  takeImportRequests(): ImportFiles {
    const taken = this.#waiting;
    this.#waiting = { paths: [], skipped: [] };
    return taken;
  }

  async openDataFolder(): Promise<{ problem?: string }> {
    const problem = await this.#deps.openPath(this.#deps.dataDir);
    if (!problem) return {};
    this.#deps.logger.warn('data folder could not be opened', { reason: problem });
    return { problem };
  }

  /**
   * Files from the command line, a second launch, macOS `open-file` or the File menu: checked, granted, queued
   * until the page takes them, and announced. A hand-over with nothing in it at all is dropped silently.
   */
  async requestImport(paths: readonly string[]): Promise<void> {
    const files = await importFilesAt(paths);
    if (files.paths.length + files.skipped.length === 0) return;
    this.#deps.grants.add(files.paths, 'import');
    this.#log('files handed over for import', files);
    const room = (list: readonly unknown[]) => Math.max(0, MAX_WAITING - list.length);
    const accepted = files.paths.slice(0, room(this.#waiting.paths));
    const dropped = files.paths.length - accepted.length;
    this.#waiting = {
      paths: [...this.#waiting.paths, ...accepted],
      skipped: [
        ...this.#waiting.skipped,
        ...files.skipped,
        ...(dropped > 0
          ? [{ name: `${dropped} more files`, reason: 'too many files are waiting; hand them over again' }]
          : []),
      ].slice(0, MAX_WAITING),
    };
    this.#deps.announce(this.#waiting.paths.length + this.#waiting.skipped.length);
  }

  #log(message: string, files: ImportFiles): void {
    this.#deps.logger.info(message, { files: files.paths.length, skipped: files.skipped.length });
  }
}
