import { randomBytes } from 'node:crypto';

/** A per-launch secret: only a page opened from the URL the bridge printed can know it. */
export function createBridgeSecret(): string {
  return randomBytes(32).toString('base64url');
}
