import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';

/**
 * The data directory holds patient data (request bodies) and the audit log: readable by its owner only. Modes
 * are set explicitly rather than trusted to the umask. On Windows chmod only toggles read-only; there the
 * user profile's ACLs do this job.
 */

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** A folder that cannot be this user's private folder: another user's, or one its mode cannot be set on. */
export class PrivateDirError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PrivateDirError';
  }
}

/**
 * Creates the folder 0700, or tightens it when it is this user's. One that belongs to another user is refused
 * before anything is changed in it: even where chmod would succeed (as root) the files made there would be
 * someone else's to read or unreadable to them (docs/security.md, finding 15).
 */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const uid = process.getuid?.();
  if (uid !== undefined && statSync(dir).uid !== uid) {
    throw new PrivateDirError(
      `${dir} belongs to another user: Rx Batch keeps patient data and sign-ins there, so it must be a folder of your own`,
    );
  }
  try {
    chmodSync(dir, PRIVATE_DIR_MODE);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new PrivateDirError(`${dir} cannot be made readable by you only (${code})`);
  }
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
