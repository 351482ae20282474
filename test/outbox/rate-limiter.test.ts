import { describe, expect, it } from 'vitest';
import { burstFor, TokenBucket } from '../../main/core/outbox/rate-limiter.js';

describe('token bucket rate limiter', () => {
  it('lets a burst through, then one request per 1/rate seconds', () => {
    const bucket = new TokenBucket(10, 3, 0);
    expect([bucket.tryTake(0), bucket.tryTake(0), bucket.tryTake(0), bucket.tryTake(0)]).toEqual([
      true,
      true,
      true,
      false,
    ]);
    expect(bucket.waitMs(0)).toBe(100);
    expect(bucket.waitMs(40)).toBe(60);
    expect(bucket.tryTake(99)).toBe(false);
    expect(bucket.tryTake(100)).toBe(true);
    expect(bucket.waitMs(100)).toBe(100);
  });

  it('never holds more than the burst, however long it was idle', () => {
    const bucket = new TokenBucket(5, 2, 0);
    const taken = [0, 0, 0].map(() => bucket.tryTake(60_000));
    expect(taken).toEqual([true, true, false]);
  });

  it('starts no more than rate × time (+ burst) requests over a long run', () => {
    const bucket = new TokenBucket(20, 4, 0);
    let started = 0;
    for (let t = 0; t <= 10_000; t += 7) while (bucket.tryTake(t)) started += 1;
    expect(started).toBeGreaterThanOrEqual(200);
    expect(started).toBeLessThanOrEqual(204);
  });

  it('mints no tokens when the clock steps back', () => {
    const bucket = new TokenBucket(1, 1, 10_000);
    expect(bucket.tryTake(10_000)).toBe(true);
    expect(bucket.tryTake(5_000)).toBe(false);
    expect(bucket.tryTake(10_500)).toBe(false);
    expect(bucket.tryTake(11_000)).toBe(true);
  });

  it('bursts the concurrency, or a millisecond of a high rate so it is not capped at the concurrency per millisecond', () => {
    expect(burstFor(4, 10)).toBe(4);
    expect(burstFor(4, 4_000)).toBe(4);
    expect(burstFor(4, 1_000_000)).toBe(1_000);
    expect(burstFor(0, 0.5)).toBe(1);
    // At a million a second with a clock counting milliseconds, 1,000 requests may start within one of them.
    const bucket = new TokenBucket(1_000_000, burstFor(4, 1_000_000), 0);
    let started = 0;
    while (bucket.tryTake(0)) started += 1;
    expect(started).toBe(1_000);
  });

  it('takes a new pace at once: the time before it at the old rate, no burst of the old size left over', () => {
    const bucket = new TokenBucket(10, 10, 0);
    for (let i = 0; i < 10; i += 1) expect(bucket.tryTake(0)).toBe(true);
    // 500 ms at 10/s earns 5 tokens; the new burst of 2 keeps only 2 of them.
    bucket.retune(1, 2, 500);
    expect([bucket.ratePerSecond, bucket.burst]).toEqual([1, 2]);
    expect(bucket.available(500)).toBe(2);
    bucket.take(500, 2);
    expect(bucket.waitMs(500)).toBe(1_000);
    expect(bucket.tryTake(1_499)).toBe(false);
    expect(bucket.tryTake(1_500)).toBe(true);
    expect(() => bucket.retune(0, 1, 2_000)).toThrow(RangeError);
  });
});
