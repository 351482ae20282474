import { describe, expect, it } from 'vitest';
import { CircuitBreaker } from '../../main/core/outbox/circuit-breaker.js';

const settings = { threshold: 3, cooldownMs: 1_000, maxCooldownMs: 5_000 };

describe('circuit breaker', () => {
  it('opens once after threshold consecutive failures; a success in between resets the count', () => {
    const breaker = new CircuitBreaker(settings);
    expect([breaker.failure(0), breaker.failure(1)]).toEqual([null, null]);
    expect(breaker.success()).toBeNull();
    expect([breaker.failure(2), breaker.failure(3)]).toEqual([null, null]);
    expect(breaker.state(3)).toBe('closed');
    expect(breaker.failure(4)).toBe('opened');
    expect(breaker.state(4)).toBe('open');
    // Failures of requests that were in flight when it opened change nothing (no second "opened").
    expect(breaker.failure(5)).toBeNull();
    expect(breaker.allowance(5, 8)).toBe(0);
  });

  it('is not opened by one order failing again and again (a poison order is not an outage)', () => {
    const breaker = new CircuitBreaker(settings);
    for (let i = 0; i < 10; i += 1) expect(breaker.failure(i, 42)).toBeNull();
    expect(breaker.state(10)).toBe('closed');
    expect(breaker.failure(11, 7)).toBeNull();
    expect(breaker.failure(12, 42)).toBeNull();
    expect(breaker.failure(13, 9)).toBe('opened');
  });

  it('lets exactly one probe through after the cooldown, and doubles the cooldown when it fails', () => {
    const breaker = new CircuitBreaker(settings);
    for (let i = 0; i < 3; i += 1) breaker.failure(0);
    expect(breaker.probeAt).toBe(1_000);
    expect(breaker.allowance(999, 8)).toBe(0);
    expect(breaker.state(1_000)).toBe('half-open');
    expect(breaker.allowance(1_000, 8)).toBe(1);
    breaker.probeStarted(1_000);
    expect(breaker.allowance(1_000, 8)).toBe(0);
    expect(breaker.failure(1_100)).toBe('reopened');
    expect(breaker.probeAt).toBe(3_100);
    breaker.probeStarted(3_100);
    expect(breaker.failure(3_200)).toBe('reopened');
    expect(breaker.probeAt).toBe(7_200);
    breaker.probeStarted(7_200);
    expect(breaker.failure(7_200)).toBe('reopened');
    // Capped at maxCooldownMs.
    expect(breaker.probeAt).toBe(12_200);
  });

  it('closes on the first answer and starts the next outage from the short cooldown', () => {
    const breaker = new CircuitBreaker(settings);
    for (let i = 0; i < 3; i += 1) breaker.failure(0);
    breaker.probeStarted(1_000);
    breaker.failure(1_000);
    breaker.probeStarted(3_000);
    expect(breaker.success()).toBe('closed');
    expect(breaker.state(3_000)).toBe('closed');
    expect(breaker.allowance(3_000, 8)).toBe(8);
    for (let i = 0; i < 3; i += 1) breaker.failure(4_000);
    expect(breaker.probeAt).toBe(5_000);
  });

  it('lets another probe go when one ended without a verdict, and probes at once when expedited', () => {
    const breaker = new CircuitBreaker(settings);
    for (let i = 0; i < 3; i += 1) breaker.failure(0);
    breaker.probeStarted(1_000);
    breaker.releaseProbe();
    expect(breaker.allowance(1_000, 8)).toBe(1);
    breaker.probeStarted(1_000);
    breaker.failure(1_000);
    expect(breaker.state(1_500)).toBe('open');
    breaker.expedite(1_500);
    expect(breaker.allowance(1_500, 8)).toBe(1);
  });
});
