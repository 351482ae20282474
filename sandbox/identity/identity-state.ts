import { randomBytes } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { PRIVATE_FILE_MODE } from '../../main/core/platform/private-files.js';
import { generateSigningKeys, type SigningKeys } from './signing-keys.js';

/**
 * What the identity server keeps across restarts when it is given a folder (the app's embedded sandbox): its
 * signing keys and service client secret (`identity-keys.json`) and its records (`identity-store.json`: grants,
 * refresh tokens, device codes), both 0600 in the sandbox's own 0700 folder. So a sign-in made against the app's
 * sandbox outlives a restart of the app, as one against a real service does. Without a folder, nothing persists.
 */

export const KEYS_FILE = 'identity-keys.json';
export const STORE_FILE = 'identity-store.json';

const jwksSchema = z.object({ keys: z.array(z.record(z.string(), z.unknown())).min(1) });
const keysFileSchema = z.object({
  privateJwks: jwksSchema,
  publicJwks: jwksSchema,
  serviceClientSecret: z.string().min(32),
});

export interface IdentityKeys extends SigningKeys {
  serviceClientSecret: string;
}

/** The keys kept in `dir` when they are there and readable, else new ones (written there when `dir` is given). */
export async function loadOrCreateKeys(dir: string | undefined): Promise<IdentityKeys> {
  if (dir !== undefined) {
    try {
      const parsed = keysFileSchema.safeParse(JSON.parse(readFileSync(join(dir, KEYS_FILE), 'utf8')));
      if (parsed.success) return parsed.data;
    } catch {
      // None yet, or unreadable: new keys (sign-ins made with the old ones end, as after any key change).
    }
  }
  const keys: IdentityKeys = {
    ...(await generateSigningKeys()),
    serviceClientSecret: randomBytes(32).toString('base64url'),
  };
  if (dir !== undefined) writePrivate(join(dir, KEYS_FILE), JSON.stringify(keys));
  return keys;
}

/** Written whole to a temporary file and renamed over the old one, so a crash never leaves half a file. */
export function writePrivate(file: string, text: string): void {
  const temporary = `${file}.tmp`;
  writeFileSync(temporary, text, { mode: PRIVATE_FILE_MODE });
  renameSync(temporary, file);
}
