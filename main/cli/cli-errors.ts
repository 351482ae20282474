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
