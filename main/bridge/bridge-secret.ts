import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A per-launch secret: only a page opened from the URL the bridge printed can know it. */
export function createBridgeSecret(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Constant-time comparison. Both sides are hashed first so that inputs of any length compare in equal time
 * (timingSafeEqual itself requires equal lengths, and an early length check would leak the secret's length).
 */
export function secretMatches(expected: string, presented: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(expected), digest(presented));
}
