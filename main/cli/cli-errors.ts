/** Exit codes: the contract of the CLI with schedulers and scripts. */
export const EXIT = {
  /** Done. */
  ok: 0,
  /** Done, but something needs a person: orders rejected, held or refused a cancel, a sign-in, a broken log. */
  attention: 1,
  /** Nothing done: the command line, an input file, or the data directory (in use) was not usable. */
  usage: 2,
} as const;

/** A bad command line: the message and the usage of the command. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** Bad input (a file, a batch, an environment): one line naming what and where. */
export class InputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InputError';
  }
}

/**
 * A whole-number option within its bounds, or a usage error naming it: `Number("abc")` is NaN, which left the
 * default in place without a word (--max-message-bytes) or a progress line every millisecond (--progress-seconds).
 */
export function wholeNumber(name: string, text: string | undefined, min: number, max: number): number | undefined {
  if (text === undefined) return undefined;
  const value = /^\d{1,15}$/.test(text) ? Number(text) : NaN;
  if (!(value >= min && value <= max)) {
    throw new UsageError(`--${name} takes a whole number from ${min} to ${max}, not "${text.slice(0, 40)}"`);
  }
  return value;
}
