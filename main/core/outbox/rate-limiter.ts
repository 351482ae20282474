/**
 * A token bucket: `ratePerSecond` tokens a second, holding at most `burst`. Each request takes one; when none is
 * left the caller waits `waitMs()`. Time comes from the caller, so tests drive it without sleeping.
 */
export class TokenBucket {
  #ratePerSecond: number;
  #burst: number;
  #tokens: number;
  #updatedAt: number;

  constructor(ratePerSecond: number, burst: number, nowMs: number) {
    if (!(ratePerSecond > 0)) throw new RangeError('ratePerSecond must be positive');
    this.#ratePerSecond = ratePerSecond;
    this.#burst = Math.max(1, burst);
    this.#tokens = this.#burst;
    this.#updatedAt = nowMs;
  }

  get ratePerSecond(): number {
    return this.#ratePerSecond;
  }

  get burst(): number {
    return this.#burst;
  }

  /**
   * A new pace from now on (the admin saved one): time until now is credited at the old rate, and tokens beyond
   * the new burst are dropped, so lowering the pace cannot leave a burst of the old size to spend.
   */
  retune(ratePerSecond: number, burst: number, nowMs: number): void {
    if (!(ratePerSecond > 0)) throw new RangeError('ratePerSecond must be positive');
    this.#refill(nowMs);
    this.#ratePerSecond = ratePerSecond;
    this.#burst = Math.max(1, burst);
    this.#tokens = Math.min(this.#tokens, this.#burst);
  }

  /** Milliseconds until a token is available; 0 when one is available now. */
  waitMs(nowMs: number): number {
    this.#refill(nowMs);
    if (this.#tokens >= 1) return 0;
    return Math.ceil(((1 - this.#tokens) / this.#ratePerSecond) * 1000);
  }

  /** Whole tokens available now. */
  available(nowMs: number): number {
    this.#refill(nowMs);
    return Math.floor(this.#tokens);
  }

  /** Takes `count` tokens the caller saw `available`. */
  take(nowMs: number, count: number): void {
    this.#refill(nowMs);
    this.#tokens = Math.max(0, this.#tokens - count);
  }

  /** Takes a token if one is available now; false otherwise. */
  tryTake(nowMs: number): boolean {
    this.#refill(nowMs);
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }

  #refill(nowMs: number): void {
    // A clock that steps back (NTP) must not mint tokens or take them away.
    const elapsed = Math.max(0, nowMs - this.#updatedAt);
    this.#tokens = Math.min(this.#burst, this.#tokens + (elapsed / 1000) * this.#ratePerSecond);
    this.#updatedAt = Math.max(this.#updatedAt, nowMs);
  }
}

/**
 * The burst for a sending pace: the concurrency, and at least a millisecond's worth of the rate. Callers count
 * time in milliseconds, so a bucket holding less would cap a high rate at `burst` requests per millisecond.
 */
export function burstFor(concurrency: number, ratePerSecond: number): number {
  return Math.max(1, concurrency, Math.floor(ratePerSecond / 1000));
}
