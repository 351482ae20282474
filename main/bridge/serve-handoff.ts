import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { acquireDataDirLock, StoreLockedError } from '../core/store/data-dir-lock.js';
import { LAUNCHER_FILE, launcherPid } from './launcher-file.js';

/**
 * Before the app (browser mode's host, the desktop shell) starts its own core on a data directory: whether
 * `rx-batch serve` holds it. One program at a time writes a store (main/core/store/data-dir-lock.ts), so a second
 * core there would only be refused; when serve runs with `--ui`, the app opens serve's page instead (its launcher,
 * a 0600 file in the data directory naming serve's PID), and when it runs without, the admin is told how to see it.
 */

/** How `rx-batch serve` names itself in the data directory's PID file (CliContext: `rx-batch <command>`). */
const SERVE_OWNER = 'rx-batch serve';

export type DataDirHolder =
  | { kind: 'none' }
  /** Serve with `--ui`: open `launcher`. */
  | { kind: 'serve-ui'; pid: number; launcher: string }
  | { kind: 'serve'; pid: number }
  /** Someone else (another app, another CLI command): the app's own start says who. */
  | { kind: 'other' };

/**
 * Who holds `dataDir`, read from the lock itself (so a PID file a crash left behind never counts): taken and let go
 * at once when it is free. A launcher counts only when it names the lock owner's PID.
 */
export function dataDirHolder(dataDir: string): DataDirHolder {
  try {
    acquireDataDirLock(dataDir, 'Rx Batch (starting)').release();
    return { kind: 'none' };
  } catch (error) {
    if (!(error instanceof StoreLockedError)) throw error;
    const { pid, owner } = error;
    if (pid === null || owner !== SERVE_OWNER) return { kind: 'other' };
    const launcher = join(dataDir, LAUNCHER_FILE);
    return existsSync(launcher) && launcherPid(dataDir) === pid
      ? { kind: 'serve-ui', pid, launcher }
      : { kind: 'serve', pid };
  }
}

/** What the app says when it opens serve's page instead of starting. */
export function openingServeText(dataDir: string, pid: number): string {
  return (
    `Rx Batch data in ${dataDir} is in use by rx-batch serve (PID ${pid}), which serves the app itself: ` +
    'its page opens instead of a second Rx Batch. Intake keeps running there until serve is stopped.'
  );
}

/** What the app says when serve holds the data directory without a page to open. */
export function serveWithoutUiText(dataDir: string, pid: number): string {
  return (
    `Rx Batch data in ${dataDir} is in use by rx-batch serve (PID ${pid}), started without --ui, so the app cannot ` +
    'open it. To see and review its intake, restart serve with --ui (the same command with --ui added); or stop ' +
    'serve (SIGTERM, or Ctrl+C where it runs) and start the app again.'
  );
}
