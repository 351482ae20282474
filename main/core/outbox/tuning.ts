import { DEFAULT_SENDING_PACE, type SendingPace } from '../store/environments-repo.js';

/** How hard and how patiently the outbox works one environment. */
export interface OutboxTuning {
  /** Requests in flight at once. */
  concurrency: number;
  /** Requests started per second (token bucket; creates, lookups and cancels together). */
  ratePerSecond: number;
  /** Backoff: the first retry waits up to this long (full jitter). */
  baseDelayMs: number;
  /** Backoff ceiling; also the longest the circuit breaker waits between probes. */
  maxDelayMs: number;
  /** Retryable failures of one order, while others get through, before it is set aside (`held`). */
  maxAttempts: number;
  /** Consecutive failures that say the service is down: stop sending and probe. */
  breakerThreshold: number;
  /** First wait before a probe; doubles after each failed probe, up to maxDelayMs. */
  breakerCooldownMs: number;
  /** Wait after an unanswered send before looking the order up, so a slow commit has landed. */
  reconcileDelayMs: number;
  /**
   * How long after a send its order may still be missing from the service's lookup (a status read lagging the
   * write): a miss sooner than this is asked about again, not believed, so the order is not sent twice.
   */
  listingGraceMs: number;
}

/**
 * Defaults for a real service: a first retry within a second, never more than five minutes apart, a poison order
 * set aside after eight failures, five failures in a row to call an outage, a two-second grace before
 * asking whether an unanswered create landed, and half a minute before a lookup's "not there" is believed. Concurrency and rate come from the environment's stored pace.
 */
export const DEFAULT_TUNING: Omit<OutboxTuning, keyof Omit<SendingPace, 'pollIntervalMs'>> = {
  baseDelayMs: 1_000,
  maxDelayMs: 300_000,
  maxAttempts: 8,
  breakerThreshold: 5,
  breakerCooldownMs: 5_000,
  reconcileDelayMs: 2_000,
  listingGraceMs: 30_000,
};

/** Explicit settings win, then the environment's stored pace, then the defaults. */
export function resolveTuning(overrides: Partial<OutboxTuning>, pace: SendingPace | undefined): OutboxTuning {
  const tuning: OutboxTuning = {
    concurrency: pace?.concurrency ?? DEFAULT_SENDING_PACE.concurrency,
    ratePerSecond: pace?.ratePerSecond ?? DEFAULT_SENDING_PACE.ratePerSecond,
    ...DEFAULT_TUNING,
    ...definedOnly(overrides),
  };
  const positive = ['concurrency', 'ratePerSecond', 'maxAttempts', 'breakerThreshold'] as const;
  for (const key of positive) {
    if (!(tuning[key] > 0)) throw new RangeError(`outbox tuning ${key} must be positive`);
  }
  const nonNegative = ['baseDelayMs', 'maxDelayMs', 'breakerCooldownMs', 'reconcileDelayMs', 'listingGraceMs'] as const;
  for (const key of nonNegative) {
    if (!(tuning[key] >= 0)) throw new RangeError(`outbox tuning ${key} must not be negative`);
  }
  tuning.concurrency = Math.floor(tuning.concurrency);
  return tuning;
}

function definedOnly(values: Partial<OutboxTuning>): Partial<OutboxTuning> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined));
}
