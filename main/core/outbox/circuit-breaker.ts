/**
 * A circuit breaker for one environment, so an outage is not hammered:
 * - closed: everything goes; failures of `threshold` different orders in a row open it. One order failing again
 *   and again (a poison order) is not an outage and must not raise the alarm, so it counts once per streak.
 * - open: nothing goes until the cooldown has passed; then it is half-open.
 * - half-open: exactly one request (the probe) goes. Success closes the breaker; failure opens it again with
 *   the cooldown doubled, up to `maxCooldownMs`.
 * Any answer from the service counts as success (a 400 or 429 still proves it is up); only failures that say
 * "no service" (connection failures, timeouts, 5xx) count against it. Time comes from the caller.
 */
export type BreakerState = 'closed' | 'open' | 'half-open';

/** What a report changed, so the caller can alert once per outage and say when it ended. */
export type BreakerChange = 'opened' | 'reopened' | 'closed' | null;

export interface BreakerSettings {
  threshold: number;
  cooldownMs: number;
  maxCooldownMs: number;
}

export class CircuitBreaker {
  readonly #settings: BreakerSettings;
  /** Orders (or other keys) that failed since the last success. */
  readonly #streak = new Set<number | string>();
  #anonymous = 0;
  #openUntil: number | null = null;
  #cooldownMs: number;
  #probeInFlight = false;

  constructor(settings: BreakerSettings) {
    this.#settings = { ...settings, maxCooldownMs: Math.max(settings.maxCooldownMs, settings.cooldownMs) };
    this.#cooldownMs = settings.cooldownMs;
  }

  state(nowMs: number): BreakerState {
    if (this.#openUntil === null) return 'closed';
    return nowMs < this.#openUntil ? 'open' : 'half-open';
  }

  /** When an open breaker lets its probe through; null when closed. */
  get probeAt(): number | null {
    return this.#openUntil;
  }

  /** Different orders that failed in a row so far (while closed). */
  get consecutiveFailures(): number {
    return this.#streak.size;
  }

  /** How many requests may be in flight now, given the normal limit: 0 while open, 1 probe when half-open. */
  allowance(nowMs: number, limit: number): number {
    const state = this.state(nowMs);
    if (state === 'closed') return limit;
    if (state === 'open' || this.#probeInFlight) return 0;
    return 1;
  }

  /** Marks the half-open probe as sent, so no second one follows it. */
  probeStarted(nowMs: number): void {
    if (this.state(nowMs) === 'half-open') this.#probeInFlight = true;
  }

  /** The probe ended without a verdict (nothing was sent): let another go. */
  releaseProbe(): void {
    this.#probeInFlight = false;
  }

  /** Someone asked to try now (resume): an open breaker lets its probe through at once. */
  expedite(nowMs: number): void {
    if (this.#openUntil !== null && this.#openUntil > nowMs) this.#openUntil = nowMs;
  }

  success(): BreakerChange {
    this.#streak.clear();
    this.#probeInFlight = false;
    if (this.#openUntil === null) return null;
    this.#openUntil = null;
    this.#cooldownMs = this.#settings.cooldownMs;
    return 'closed';
  }

  /**
   * A failure that says "no service"; `key` names the order, so its repeats do not add up to an outage. `atOnce`: one
   * is enough (an answer that speaks for every request, such as a firewall's 403), so it opens without a streak.
   */
  failure(nowMs: number, key: number | string = `anonymous-${(this.#anonymous += 1)}`, atOnce = false): BreakerChange {
    if (this.#openUntil === null) {
      this.#streak.add(key);
      if (!atOnce && this.#streak.size < this.#settings.threshold) return null;
      this.#streak.clear();
      this.#openUntil = nowMs + this.#cooldownMs;
      return 'opened';
    }
    // While open, failures of requests that were already in flight change nothing; only the probe's counts.
    if (!this.#probeInFlight) return null;
    this.#probeInFlight = false;
    this.#cooldownMs = Math.min(this.#settings.maxCooldownMs, this.#cooldownMs * 2);
    this.#openUntil = nowMs + this.#cooldownMs;
    return 'reopened';
  }
}
