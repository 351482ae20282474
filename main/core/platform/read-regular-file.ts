import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';

/**
 * A file named on the command line, read whole: opened without waiting (a FIFO's open would block until a writer
 * came, holding the data directory's lock and deaf to SIGTERM), then refused unless it is a regular file of at
 * most `maxBytes`. Throws an Error that names the file and why.
 */
export function readRegularFileSync(path: string, maxBytes: number, what: string): Buffer {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    throw new Error(`${path} cannot be read: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, {
      cause: error,
    });
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) throw new Error(`${path} is not a regular file`);
    if (info.size > maxBytes)
      throw new Error(`${path} is larger than ${what} can be (${Math.round(maxBytes / 1024)} KB)`);
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}
