import type { CallHandlers } from '../../shared/contract.js';
import type { ChoosePurpose, desktopCalls, ImportFiles } from '../../shared/desktop-contract.js';
import type { Environment } from '../../shared/environment.js';
import { identityOf, type EnvironmentIdentity } from './environments/registry.js';
import type { BindingQuestion } from './intake/binding-question.js';
import type { RetentionQuestion } from './retention-question.js';

export type { BindingQuestion } from './intake/binding-question.js';
export type { RetentionQuestion } from './retention-question.js';

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
   * Asks the admin, in a native dialog the page cannot draw or answer, whether an environment may be added or
   * re-pointed (its API origin, identity server, client id or grant set or changed; a re-pointed one is signed
   * out). True to go ahead. Script in the page could otherwise add a server of its own and send orders there.
   */
  confirmIdentityChange(change: IdentityChange): Promise<boolean>;
  /**
   * Asks the admin, in a native dialog, whether an environment may be removed (`message` says what that does).
   * True to go ahead. Script in the page could otherwise remove an environment the admin relies on.
   */
  confirmRemoval(removal: RemovalQuestion): Promise<boolean>;
  /**
   * Asks the admin, in a native dialog, whether imported file copies may be kept for fewer days than now
   * (`message` says what that drops for good). True to go ahead. Script in the page could otherwise shorten it
   * and have the background run drop the source copies of finished orders.
   */
  confirmRetention(question: RetentionQuestion): Promise<boolean>;
  /**
   * Asks the admin, in a native dialog, whether live intake may accept more from a sender (`message` says what:
   * an address or clinic added, a list cleared). True to go ahead. Script in the page could otherwise open a bound
   * sender to any computer that reaches the listener, or to any clinic (docs/security.md, finding 27).
   */
  confirmBindingChange(question: BindingQuestion): Promise<boolean>;
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

/** An environment about to be removed, as the confirmation shows it. */
export interface RemovalQuestion {
  name: string;
  message: string;
}

/** A new environment (no `before`) or an edit that changes one's identity, as the confirmation shows it. */
export interface IdentityChange {
  name: string;
  before?: EnvironmentIdentity;
  after: EnvironmentIdentity;
}

export function identityChange(before: Environment | undefined, after: Environment): IdentityChange {
  return {
    name: before?.name ?? after.name,
    ...(before ? { before: identityOf(before) } : {}),
    after: identityOf(after),
  };
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
