import type { CallHandlers } from '../../shared/contract.js';
import type { ChoosePurpose, desktopCalls, ImportFiles } from '../../shared/desktop-contract.js';
import type { ConfirmQuestion } from './confirm-question.js';

export type { ConfirmQuestion } from './confirm-question.js';

/**
 * The desktop calls of the contract. The core knows nothing of Electron: the shell passes a `DesktopIntegration`
 * to `createCore`, and without one (browser mode, direct calls, the CLI) each call answers `desktop-only` with
 * what to do instead.
 */

type DesktopCallName = keyof typeof desktopCalls;

/** What the desktop shell supplies (main/electron/desktop-integration.ts). */
export interface DesktopIntegration {
  /** The native open dialog: checked CSV/HL7 files, a folder already expanded; `intake-folder`: the folder itself. */
  chooseFiles(purpose: ChoosePurpose): Promise<ImportFiles>;
  /** Files handed over by the operating system or the File menu since the last call, each once. */
  takeImportRequests(): ImportFiles | Promise<ImportFiles>;
  /** Opens the data directory in the file manager; a sentence when the system could not. */
  openDataFolder(): Promise<{ problem?: string }>;
  /**
   * Asks the admin, in a native dialog the page cannot draw or answer, the core's question (confirm-question.ts):
   * adding or re-pointing an environment, removing one, a shorter retention time, a looser sender binding. True
   * to go ahead. Script in the page could otherwise send orders to a server of its own, remove an environment the
   * admin relies on, have source copies dropped, or open a bound sender to any computer or clinic.
   */
  confirm(question: ConfirmQuestion): Promise<boolean>;
  /**
   * Shows the native save dialog for an export (the audit log): the path the admin chose, or null when cancelled.
   * The page never names a path, so script in it cannot have the core write anywhere.
   */
  chooseSavePath(request: SaveRequest): Promise<string | null>;
}

/** What a save dialog offers: a file name in the user's usual folder, of one kind. */
export interface SaveRequest {
  suggestedName: string;
  format: 'csv' | 'jsonl';
}

const DIALOGS_DESKTOP_ONLY =
  'File dialogs are part of the desktop app. Here, choose or drop the file on the Import screen.';
const FOLDER_DESKTOP_ONLY =
  'Opening folders is part of the desktop app. Here, open the data directory shown in Settings yourself.';

export function buildDesktopHandlers(desktop: DesktopIntegration | undefined): Pick<CallHandlers, DesktopCallName> {
  return {
    'files.choose': async ({ purpose }) =>
      desktop
        ? { ok: true, ...(await desktop.chooseFiles(purpose)) }
        : { ok: false, reason: 'desktop-only', message: DIALOGS_DESKTOP_ONLY },
    'import.takeRequested': async () => (desktop ? await desktop.takeImportRequests() : { paths: [], skipped: [] }),
    'app.openDataFolder': async () => {
      if (!desktop) return { ok: false, reason: 'desktop-only', message: FOLDER_DESKTOP_ONLY };
      const { problem } = await desktop.openDataFolder();
      return problem
        ? { ok: false, reason: 'failed', message: `The data folder did not open: ${problem}` }
        : { ok: true };
    },
  };
}
