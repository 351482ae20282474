import type Database from 'better-sqlite3';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase } from './open-database.js';
import { ensurePrivateFile, PRIVATE_FILE_MODE } from '../platform/private-files.js';

/**
 * One writer per data directory, whether app or CLI.
 *
 * The lock itself is SQLite's: `rx-batch.lock` is an empty SQLite file on which the owner holds an open
 * `BEGIN EXCLUSIVE` transaction. That is an OS file lock (fcntl on Unix, LockFileEx on Windows), so the kernel
 * drops it the instant the owner dies, even by SIGKILL or power loss. A PID file with O_EXCL would need stale
 * detection by `process.kill(pid, 0)`, which a reused PID fools (the app then refuses to start until someone
 * deletes a file) and whose steal-the-stale-lock step races between two starting processes. SQLite's lock has
 * neither problem, and SQLite already handles two connections inside one process correctly.
 *
 * SQLite cannot say who holds a lock, so the owner writes its PID to `rx-batch.pid` once it holds it; a refused
 * process reads that only to name the owner in its message. A PID file left by a crash is simply overwritten.
 */

export const LOCK_FILE = 'rx-batch.lock';
export const PID_FILE = 'rx-batch.pid';

export class StoreLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number | null,
    /** What the owner said it is (`rx-batch serve`, the desktop app…), when it said. */
    readonly owner: string | null = null,
  ) {
    super(
      (pid === null
        ? `Rx Batch data in ${dataDir} is already open by another process (its PID could not be read)`
        : `Rx Batch data in ${dataDir} is already open by PID ${pid}${owner ? ` (${owner})` : ''}`) +
        '. One program at a time uses a data folder: stop that one first, or give this one another folder.',
    );
    this.name = 'StoreLockedError';
  }
}

export interface DataDirLock {
  readonly dataDir: string;
  release(): void;
}

/**
 * `owner` names the program in the PID file (`rx-batch serve`, the desktop app), so a program refused the data
 * directory can say who holds it.
 */
export function acquireDataDirLock(dataDir: string, owner?: string): DataDirLock {
  const lockFile = join(dataDir, LOCK_FILE);
  const pidFile = join(dataDir, PID_FILE);
  ensurePrivateFile(lockFile);
  const db = openDatabase(lockFile);
  try {
    // Refuse at once instead of waiting out better-sqlite3's default busy timeout.
    db.pragma('busy_timeout = 0');
    db.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    db.close();
    if (isBusy(error)) {
      const pid = readOwnerPid(pidFile);
      throw new StoreLockedError(dataDir, pid, pid === null ? null : readOwnerName(pidFile));
    }
    throw error;
  }
  writePidFile(pidFile, owner);
  let released = false;
  return {
    dataDir,
    release() {
      if (released) return;
      released = true;
      // Remove the PID file while still holding the lock, so a successor's PID file is never deleted.
      if (readPid(pidFile) === process.pid) rmSync(pidFile, { force: true });
      closeHolding(db);
    },
  };
}

function closeHolding(db: Database.Database): void {
  if (db.inTransaction) db.exec('ROLLBACK');
  db.close();
}

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED';
}

/** The PID on the first line (all an older version wrote), the owner's name on the second. */
function writePidFile(pidFile: string, owner: string | undefined): void {
  const temp = `${pidFile}.${process.pid}.tmp`;
  const name = owner?.replace(/[^\x20-\x7e]/g, '').slice(0, 80);
  writeFileSync(temp, `${process.pid}\n${name ? `${name}\n` : ''}`, { mode: PRIVATE_FILE_MODE });
  renameSync(temp, pidFile);
}

function readPid(pidFile: string): number | null {
  try {
    const pid = Number.parseInt(readFileSync(pidFile, 'utf8').split('\n', 1)[0]!.trim(), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** Only printable ASCII, at most 80 characters: the file is another process's, read into a message. */
function readOwnerName(pidFile: string): string | null {
  try {
    const name = (readFileSync(pidFile, 'utf8').split('\n')[1] ?? '').replace(/[^\x20-\x7e]/g, '').trim();
    return name === '' ? null : name.slice(0, 80);
  } catch {
    return null;
  }
}

export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The owner writes its PID just after taking the lock, so a process refused in that instant may find no file,
 * or the dead PID a crash left behind: wait briefly for a live one.
 */
function readOwnerPid(pidFile: string): number | null {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let tries = 0; tries < 20; tries += 1) {
    const pid = readPid(pidFile);
    if (pid !== null && isProcessAlive(pid)) return pid;
    Atomics.wait(pause, 0, 0, 50);
  }
  return null;
}
