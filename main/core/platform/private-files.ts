import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';

/**
 * The data directory holds patient data (request bodies) and the audit log: readable by its owner only. Modes
 * are set explicitly rather than trusted to the umask. On Windows chmod only toggles read-only; there the
 * user profile's ACLs do this job.
 */

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  chmodSync(dir, PRIVATE_DIR_MODE);
}

/**
 * Creates the file empty with mode 0600 if it is missing, else tightens its mode. The file is opened only when
 * it does not exist yet: closing any descriptor of a file drops this process's POSIX locks on it, and SQLite
 * may hold those on an existing file.
 */
export function ensurePrivateFile(file: string): void {
  if (!existsSync(file)) closeSync(openSync(file, 'a', PRIVATE_FILE_MODE));
  chmodSync(file, PRIVATE_FILE_MODE);
}

/** Tightens a file SQLite made (WAL and shared-memory files copy the database's mode, but be sure). */
export function tightenIfPresent(file: string): void {
  if (existsSync(file)) chmodSync(file, PRIVATE_FILE_MODE);
}
