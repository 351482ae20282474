import { chmodSync, closeSync, existsSync, lstatSync, mkdirSync, openSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { parse, resolve } from 'node:path';

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

function realOrSame(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/**
 * Folders the operating system owns (Linux's FHS, macOS's). Only the folders themselves: `/var/lib/rx-batch` is a
 * fine data directory, `/var` is not. Compared by name and, links resolved, where they lead (`/bin` → `/usr/bin`).
 */
const SYSTEM_FOLDERS = new Set([
  ...['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/usr', '/var', '/boot', '/dev', '/proc'],
  ...['/sys', '/run', '/home', '/opt', '/srv', '/mnt', '/media', '/snap', '/usr/bin', '/usr/sbin', '/usr/lib'],
  ...['/usr/lib32', '/usr/lib64', '/usr/libx32', '/usr/local', '/usr/share', '/var/lib', '/var/log', '/var/tmp'],
  ...['/System', '/Library', '/Applications', '/Users', '/Volumes', '/private', '/private/etc', '/private/var'],
  ...['/cores', '/usr/local/bin'],
]);

/**
 * Why an existing folder of this user's must not be made Rx Batch's, or undefined. Tightening it to 0700 changes it
 * for everything else kept there: as root, `--data-dir /tmp` dropped /tmp's sticky bit and shut every other user
 * out of it, and `/` (also what an empty `--data-dir ""` resolves to under a service manager) the whole system.
 */
function sharedFolderProblem(dir: string, info: { mode: number; gid: number }): string | undefined {
  // Where it is, links resolved: a link named as the data directory is the folder it leads to (finding 41).
  const path = realpathSync(dir);
  const where = path === resolve(dir) ? '' : ` (a link to ${path})`;
  if (path === parse(path).root) return `is the root of the file system${where}`;
  // As root, a typo such as `--data-dir /etc` would close a folder the system needs to every other user.
  if (SYSTEM_FOLDERS.has(path) || SYSTEM_FOLDERS.has(resolve(dir))) return `is a system folder${where}`;
  if (path === realOrSame(homedir())) return `is your home folder${where}`;
  // Group write counts when the group is not the user's own (a umask of 002 gives a user's private group 0775).
  const groupWrites = (info.mode & 0o020) !== 0 && info.gid !== process.getgid?.();
  if ((info.mode & 0o1002) !== 0 || groupWrites) {
    return `is shared: other users can write to it (mode ${(info.mode & 0o7777).toString(8).padStart(4, '0')})`;
  }
  return undefined;
}

/**
 * Creates the folder 0700, or tightens it when it is this user's. One that belongs to another user is refused
 * before anything is changed in it: even where chmod would succeed (as root) the files made there would be
 * someone else's to read or unreadable to them (docs/security.md, finding 15). So is one of this user's that
 * others share, or the root or home folder (finding 31).
 */
export function ensurePrivateDir(dir: string): void {
  const created = mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE }) !== undefined;
  const info = statSync(dir);
  const uid = process.getuid?.();
  // A link another user made where the folder was to be (in /tmp, say, before the first run) would choose for
  // them which folder of this user's is tightened and filled, / or the home folder among them (finding 41).
  const entry = lstatSync(dir);
  if (uid !== undefined && entry.isSymbolicLink() && entry.uid !== uid) {
    throw new PrivateDirError(
      `${dir} is a link another user made: Rx Batch keeps patient data and sign-ins in its folder, so it must be ` +
        'a folder of your own, or a link you made',
    );
  }
  if (uid !== undefined && info.uid !== uid) {
    throw new PrivateDirError(
      `${dir} belongs to another user: Rx Batch keeps patient data and sign-ins there, so it must be a folder of your own`,
    );
  }
  const problem = created || process.platform === 'win32' ? undefined : sharedFolderProblem(dir, info);
  if (problem !== undefined) {
    throw new PrivateDirError(
      `${dir} ${problem}: Rx Batch makes its folder readable by you only, which would change it for everything ` +
        'else kept there; name a folder for Rx Batch alone (a missing one is made)',
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
