/**
 * What the time beside "Access until" means. The token is renewed when the app next needs it, not ahead of time,
 * so an idle app shows a time already past; said as it is, it read as a sign-in that had run out.
 */
export function accessHint(expiresAt: string, now: number): string {
  return Date.parse(expiresAt) > now
    ? '(renewed automatically)'
    : '(passed: renewed by itself the next time the app calls the service; nothing to do)';
}
