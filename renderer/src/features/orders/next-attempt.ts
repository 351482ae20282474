import { formatDateTime } from '../format/format-date.js';

/**
 * When the outbox tries this order again, for its Attempts line. A planned time already past (the outbox is paused,
 * offline or waiting for a sign-in, or simply has not reached it yet) read as a time to come: it says the try is due.
 */
export function nextAttemptText(nextAttemptAt: string, now: number): string {
  const at = Date.parse(nextAttemptAt);
  if (Number.isNaN(at)) return '';
  return at > now
    ? `next at ${formatDateTime(nextAttemptAt)}`
    : `next try due since ${formatDateTime(nextAttemptAt)}: it goes when sending runs`;
}
