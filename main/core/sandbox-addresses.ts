import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { PRIVATE_FILE_MODE } from './platform/private-files.js';

/**
 * The ports the local sandbox listened on last time, kept beside its data (`local-sandbox/addresses.json`), so its
 * addresses stay the same from one start to the next and a profile made against it keeps working (issue #13).
 * Only a preference: a port taken by something else is given up for any free one, and the app follows the move.
 */

export const ADDRESSES_FILE = 'addresses.json';

const portSchema = z.number().int().min(1024).max(65_535);
const addressesSchema = z.object({ apiPort: portSchema, identityPort: portSchema }).strict();
export type SandboxPorts = z.infer<typeof addressesSchema>;

export function rememberedSandboxPorts(sandboxDir: string): SandboxPorts | undefined {
  try {
    const parsed = addressesSchema.safeParse(JSON.parse(readFileSync(join(sandboxDir, ADDRESSES_FILE), 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

export function rememberSandboxPorts(sandboxDir: string, ports: SandboxPorts): void {
  writeFileSync(join(sandboxDir, ADDRESSES_FILE), `${JSON.stringify(ports)}\n`, { mode: PRIVATE_FILE_MODE });
}

export function portOf(url: string): number {
  return Number(new URL(url).port);
}

/** Starts on the remembered ports when given and free; when either is taken, on any free ports. */
export async function onRememberedPorts<T>(
  remembered: SandboxPorts | undefined,
  start: (ports: SandboxPorts | undefined) => Promise<T>,
): Promise<T> {
  if (remembered === undefined) return start(undefined);
  try {
    return await start(remembered);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    return start(undefined);
  }
}
