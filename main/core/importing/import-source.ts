import { constants } from 'node:fs';
import { open, readlink, realpath, stat, type FileHandle } from 'node:fs/promises';
import type { BigIntStats } from 'node:fs';
import { problem } from './problems.js';
import type { Problem } from '../model/imported-order.js';

/**
 * An import file opened once. Whoever may write in the folder it is in can swap the name for a link to
 * `~/.ssh/id_rsa` or for a FIFO between a check of the path and an open of it (docs/security.md, finding 20), so
 * the path is opened once, right after its check, and every read after that (the sample, the padding at the end,
 * the UTF-8 check, each pass of the importer, a watched file's hash) is a positional read of this handle.
 */
export interface ImportSource {
  /** The path it was opened by; for reports only, never opened again. */
  readonly path: string;
  /** Its size when it was opened. */
  readonly size: number;
  /** Reads up to `length` bytes at `position` into `buffer` at `offset`; how many were read (0 at the end). */
  read(buffer: Buffer, offset: number, length: number, position: number): Promise<number>;
}

/**
 * An ImportSource its opener closes (once: later calls wait for the same close). Its reads stop at the size it had
 * when opened, so every pass (and a watched file's hash) reads the same bytes of a file still being appended to.
 */
export interface OpenImportSource extends ImportSource {
  readonly dev: bigint;
  readonly ino: bigint;
  /** Whether the file's size or modification time is not what it was when opened: it was written meanwhile. */
  changedSinceOpen(): Promise<boolean>;
  close(): Promise<void>;
}

export type OpenedImport = { ok: true; source: OpenImportSource } | { ok: false; problem: Problem };

/**
 * Not following a final link and not waiting for a FIFO's writer. Windows has neither flag (undefined there): the
 * open follows a link, and the check after it (`opensWhereApproved`) refuses the file before anything is read.
 */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

class OpenedFile implements OpenImportSource {
  readonly #handle: FileHandle;
  #closed: Promise<void> | undefined;

  constructor(
    handle: FileHandle,
    readonly path: string,
    info: BigIntStats,
  ) {
    this.#handle = handle;
    this.size = Number(info.size);
    this.dev = info.dev;
    this.ino = info.ino;
    this.#opened = info;
  }

  readonly #opened: BigIntStats;

  readonly size: number;
  readonly dev: bigint;
  readonly ino: bigint;

  async read(buffer: Buffer, offset: number, length: number, position: number): Promise<number> {
    const upTo = Math.min(length, this.size - position);
    if (upTo <= 0) return 0;
    return (await this.#handle.read(buffer, offset, upTo, position)).bytesRead;
  }

  async changedSinceOpen(): Promise<boolean> {
    const now = await this.#handle.stat({ bigint: true });
    return now.size !== this.#opened.size || now.mtimeNs !== this.#opened.mtimeNs;
  }

  close(): Promise<void> {
    this.#closed ??= this.#handle.close();
    return this.#closed;
  }
}

const refused = (file: string, code: string, text: string): OpenedImport => ({
  ok: false,
  problem: problem('error', file, {}, code, text),
});

function notRegularText(info: BigIntStats): string {
  if (info.isDirectory()) return 'The path is a folder, not a CSV or HL7 file; choose a file inside it.';
  const what = info.isFIFO()
    ? 'a named pipe (FIFO)'
    : info.isSocket()
      ? 'a socket'
      : info.isBlockDevice() || info.isCharacterDevice()
        ? 'a device'
        : 'not a regular file';
  return `The file is ${what}, not a CSV or HL7 text file; only regular files are read.`;
}

const LINK_TEXT =
  'The file is a symbolic link, and links are not followed here; put the file itself there, not a link to it.';
const REPLACED_TEXT =
  'The file was replaced while it was being opened (a link or another file was put in its place); nothing was ' +
  'read from it. Import it again.';

/**
 * Whether the open handle is the file at `path` now, through no link: a folder on the way swapped for a link to
 * another folder is not caught by O_NOFOLLOW, which looks at the last name only. Linux says where an open file
 * is (`/proc/self/fd`), which no renaming can fake; elsewhere the path is resolved again, must still be itself
 * (no link anywhere on it) and name the same file (device and inode) as the handle.
 */
async function opensWhereApproved(handle: FileHandle, path: string, info: BigIntStats): Promise<boolean> {
  const where = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => undefined);
  if (where !== undefined) return where === path;
  const [real, named] = await Promise.all([
    realpath(path).catch(() => undefined),
    stat(path, { bigint: true }).catch(() => undefined),
  ]);
  return real === path && named !== undefined && named.dev === info.dev && named.ino === info.ino;
}

/**
 * Opens `path` for an import: `path` is what an import path policy approved, with every link already resolved
 * (`realpath`). Refused with a problem, having read nothing: a link in the last place (O_NOFOLLOW), anything but
 * a regular file (a FIFO is opened without waiting for a writer, then refused), and a file that is not the one
 * at `path` now. Throws for I/O errors (a missing file, no permission), with the error's code.
 */
export async function openImportSource(path: string, file: string): Promise<OpenedImport> {
  let handle: FileHandle;
  try {
    handle = await open(path, OPEN_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // ELOOP on Linux and macOS, EMLINK on FreeBSD, for O_NOFOLLOW on a link.
    if ((code === 'ELOOP' || code === 'EMLINK') && constants.O_NOFOLLOW !== undefined) {
      return refused(file, 'file.link', LINK_TEXT);
    }
    if (code === 'EISDIR') return refused(file, 'file.notRegular', 'The path is a folder, not a CSV or HL7 file.');
    throw error;
  }
  try {
    const info = await handle.stat({ bigint: true });
    if (!info.isFile()) {
      await handle.close();
      return refused(file, 'file.notRegular', notRegularText(info));
    }
    if (!(await opensWhereApproved(handle, path, info))) {
      await handle.close();
      return refused(file, 'file.replaced', REPLACED_TEXT);
    }
    return { ok: true, source: new OpenedFile(handle, path, info) };
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
}

/**
 * The path to open for a caller who is the user at their own command line (the CLI, direct calls): their links
 * are theirs to follow, so they are resolved here, once, before the open. A path that cannot be resolved is
 * returned as it is, for the open to say why (a missing file, no permission).
 */
export function resolveOwnPath(path: string): Promise<string> {
  return realpath(path).catch(() => path);
}
