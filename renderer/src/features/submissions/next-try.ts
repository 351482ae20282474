import { formatTime } from '../format/format-date.js';
import { formatRemaining } from '../format/format-time.js';

export interface NextTry {
  /** For the eye: "in 0:23 (at 14:35:10)", or "now". */
  text: string;
  /** For a screen reader's timer: "in 23 seconds". */
  words: string;
  /** The time has come: the try is under way (or about to be). */
  due: boolean;
}

/**
 * When the outbox tries the service again, counted down from `now`; null when no try is planned (the outbox waits
 * for a person: a sign-in, a resume).
 */
export function nextTry(nextAttemptAt: string | null | undefined, now: number): NextTry | null {
  if (!nextAttemptAt) return null;
  const at = Date.parse(nextAttemptAt);
  if (Number.isNaN(at)) return null;
  const left = at - now;
  if (left <= 500) return { text: 'now', words: 'now', due: true };
  const { clock, words } = formatRemaining(left);
  return { text: `in ${clock} (at ${formatTime(nextAttemptAt)})`, words: `in ${words}`, due: false };
}
