import { describe, expect, it } from 'vitest';
import { backoffCeilingMs, retryDelayMs } from '../../main/core/outbox/backoff.js';

const settings = { baseDelayMs: 100, maxDelayMs: 5_000 };

describe('backoff with full jitter', () => {
  it('doubles its ceiling per retry up to the maximum', () => {
    expect([0, 1, 2, 3, 5, 6, 30, 2000].map((n) => backoffCeilingMs(n, settings))).toEqual([
      100, 200, 400, 800, 3_200, 5_000, 5_000, 5_000,
    ]);
  });

  it('waits anywhere from zero up to the ceiling, as random says', () => {
    expect(retryDelayMs(3, settings, () => 0)).toBe(0);
    expect(retryDelayMs(3, settings, () => 0.5)).toBe(400);
    expect(retryDelayMs(3, settings, () => 0.999_999)).toBe(799);
    const seen = Array.from({ length: 2_000 }, () => retryDelayMs(4, settings, Math.random));
    expect(Math.min(...seen)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...seen)).toBeLessThan(1_600);
    // Full jitter spreads the retries over the whole range, not around the ceiling.
    expect(seen.filter((delay) => delay < 400).length).toBeGreaterThan(300);
    expect(seen.filter((delay) => delay >= 1_200).length).toBeGreaterThan(300);
  });

  it('never retries earlier than Retry-After, and keeps a longer jittered wait', () => {
    expect(retryDelayMs(0, settings, () => 0, 7_000)).toBe(7_000);
    expect(retryDelayMs(0, settings, () => 0.999, 7_000)).toBe(7_000);
    expect(retryDelayMs(6, settings, () => 0.9, 1_000)).toBe(4_500);
    expect(retryDelayMs(6, settings, () => 0.1, 1_000)).toBe(1_000);
  });
});
