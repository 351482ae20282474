/** Events per second over a sliding window, for the progress line. */
export class SlidingRate {
  readonly #windowMs: number;
  readonly #events: number[] = [];
  #head = 0;
  #startedAt: number | null = null;

  constructor(windowMs = 10_000) {
    this.#windowMs = windowMs;
  }

  record(nowMs: number, count = 1): void {
    this.#startedAt ??= nowMs;
    for (let i = 0; i < count; i += 1) this.#events.push(nowMs);
  }

  perSecond(nowMs: number): number {
    const from = nowMs - this.#windowMs;
    while (this.#head < this.#events.length && this.#events[this.#head]! <= from) this.#head += 1;
    if (this.#head > 1024) {
      this.#events.splice(0, this.#head);
      this.#head = 0;
    }
    const count = this.#events.length - this.#head;
    if (count === 0 || this.#startedAt === null) return 0;
    // Before a full window has passed, divide by the time actually covered (at least a second).
    const spanMs = Math.max(1000, Math.min(this.#windowMs, nowMs - this.#startedAt));
    return Math.round((count / spanMs) * 1000 * 10) / 10;
  }
}
