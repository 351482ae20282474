import { appendFileSync, existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createLogger, type Logger } from '../core/platform/logger.js';
import { ensurePrivateDir, PRIVATE_FILE_MODE } from '../core/platform/private-files.js';

/**
 * The desktop app's own log: JSON lines in `<data dir>/logs/rx-batch.log`, rotated by size into `.1` … `.N`
 * (oldest dropped), readable by the user only. Lines go through `createLogger`, which masks fields named after
 * secrets or patient data; the shell itself logs only operational facts (starts, refusals, failures by name).
 */

export interface RotationOptions {
  /** Largest size of the current file before it rotates. Default 1 MiB. */
  maxBytes?: number;
  /** Rotated files kept besides the current one. Default 4. */
  maxFiles?: number;
  /** Also copy lines to stderr (development). */
  echo?: boolean;
}

export const LOG_FILE = 'rx-batch.log';

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/** A sink for `createLogger` that appends to `dir/LOG_FILE` and rotates before a line would overflow it. */
export function rotatingFileSink(dir: string, options: RotationOptions = {}): (line: string) => void {
  const maxBytes = options.maxBytes ?? 1024 * 1024;
  const maxFiles = options.maxFiles ?? 4;
  const file = join(dir, LOG_FILE);
  ensurePrivateDir(dir);
  let size = sizeOf(file);

  const rotate = () => {
    rmSync(`${file}.${maxFiles}`, { force: true });
    for (let index = maxFiles - 1; index >= 1; index -= 1) {
      if (existsSync(`${file}.${index}`)) renameSync(`${file}.${index}`, `${file}.${index + 1}`);
    }
    if (maxFiles >= 1 && existsSync(file)) renameSync(file, `${file}.1`);
    else rmSync(file, { force: true });
    size = 0;
  };

  return (line: string) => {
    const text = `${line}\n`;
    const bytes = Buffer.byteLength(text, 'utf8');
    try {
      if (size > 0 && size + bytes > maxBytes) rotate();
      appendFileSync(file, text, { mode: PRIVATE_FILE_MODE });
      size += bytes;
    } catch {
      // A full disk or a vanished directory must not take the app down; the line is lost.
    }
    if (options.echo) process.stderr.write(text);
  };
}

/** The logger the shell (and the core it starts) writes to. */
export function createShellLogger(logDir: string, options: RotationOptions = {}): Logger {
  return createLogger('rx-batch', rotatingFileSink(logDir, options));
}
