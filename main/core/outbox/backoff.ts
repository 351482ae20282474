/**
 * Exponential backoff with full jitter (a uniformly random wait in [0, min(max, base·2^n)]), which spreads the
 * retries of many orders that failed together instead of sending them back in waves. A `Retry-After` from the
 * service is a floor: never earlier than it asked.
 */
export interface BackoffSettings {
  baseDelayMs: number;
  maxDelayMs: number;
}

/** The ceiling of the n-th retry's wait (n = 0 for the first retry). */
export function backoffCeilingMs(retry: number, settings: BackoffSettings): number {
  const exponent = Math.max(0, Math.min(retry, 52));
  return Math.min(settings.maxDelayMs, settings.baseDelayMs * 2 ** exponent);
}

/**
 * How long to wait before the n-th retry. `random` returns [0, 1) like Math.random; `retryAfterMs`, when the
 * service sent one, is the least this returns.
 */
export function retryDelayMs(
  retry: number,
  settings: BackoffSettings,
  random: () => number,
  retryAfterMs?: number,
): number {
  const jittered = Math.floor(random() * backoffCeilingMs(retry, settings));
  return retryAfterMs === undefined ? jittered : Math.max(retryAfterMs, jittered);
}
