import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PRIVATE_FILE_MODE } from '../core/platform/private-files.js';

/**
 * The port browser mode served on last time, kept in the data directory, so the page's origin (and with it what
 * the page keeps in the browser: the chosen environment, the theme) stays the same from one start to the next.
 * Only a preference: when the port is taken, any free port is used, and the launcher always opens the port
 * actually bound, so a process squatting the old port is never visited.
 */

export const PORT_FILE = 'browser-port';

export function rememberedPort(dataDir: string): number | undefined {
  try {
    const text = readFileSync(join(dataDir, PORT_FILE), 'utf8').trim();
    const port = Number(text);
    return /^\d+$/.test(text) && port >= 1024 && port <= 65_535 ? port : undefined;
  } catch {
    return undefined;
  }
}

export function rememberPort(dataDir: string, port: number): void {
  writeFileSync(join(dataDir, PORT_FILE), `${port}\n`, { mode: PRIVATE_FILE_MODE });
}

/** Starts on the remembered port when one is given and free, else on any free port. */
export async function onRememberedPort<T>(
  remembered: number | undefined,
  start: (port: number) => Promise<T>,
): Promise<T> {
  if (remembered === undefined) return start(0);
  try {
    return await start(remembered);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    return start(0);
  }
}
