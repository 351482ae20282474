import { setTimeout as delay } from 'node:timers/promises';

/**
 * Spaces the starts of service calls to at most `ratePerSecond` (the environment's pace, "requests started per
 * second"), handing out start times in turn to however many workers ask. Waiting is abortable: a cancelled run
 * stops waiting at once.
 */
export class CallPacer {
  readonly #intervalMs: number;
  readonly #signal: AbortSignal;
  readonly #clock: () => number;
  #next = 0;

  constructor(ratePerSecond: number, signal: AbortSignal, clock: () => number = () => performance.now()) {
    if (!(ratePerSecond > 0)) throw new RangeError('ratePerSecond must be positive');
    this.#intervalMs = 1000 / ratePerSecond;
    this.#signal = signal;
    this.#clock = clock;
  }

  /** Resolves when the caller may start its call; rejects with the abort reason once the run is cancelled. */
  async turn(): Promise<void> {
    this.#signal.throwIfAborted();
    const now = this.#clock();
    const at = Math.max(now, this.#next);
    this.#next = at + this.#intervalMs;
    if (at > now) await pause(at - now, this.#signal);
  }
}

/** Waits `ms`, or rejects as soon as the signal aborts. */
export async function pause(ms: number, signal: AbortSignal): Promise<void> {
  signal.throwIfAborted();
  if (ms <= 0) return;
  await delay(ms, undefined, { signal });
}
