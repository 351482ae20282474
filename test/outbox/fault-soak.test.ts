import { describe, expect, it, vi } from 'vitest';
import { ENVIRONMENT_ID, enqueue, expectEachCreatedOnce, sampleOrders } from './support/outbox-fixture.js';
import { proxiedSandbox } from './support/proxied-sandbox.js';

/**
 * Fault soak: 5xx, 429 with Retry-After, connection resets, then a full outage in the middle of the batch.
 * Every order is created exactly once; the outage is one "service unavailable" condition, and during it the
 * outbox sends only a handful of probes instead of retrying every order.
 */

const TUNING = {
  concurrency: 4,
  ratePerSecond: 200,
  baseDelayMs: 10,
  maxDelayMs: 400,
  maxAttempts: 8,
  breakerThreshold: 6,
  breakerCooldownMs: 100,
  reconcileDelayMs: 10,
  listingGraceMs: 50,
};
const ORDERS = 300;
const OUTAGE_MS = 1_500;

// Straight to the sandbox (its own faults), not through the proxy.
const fixture = proxiedSandbox(TUNING);

describe('fault soak', () => {
  it('creates every order once through 5xx, 429, resets and an outage, without a storm of retries', async () => {
    const { t, outbox, attention } = fixture.setUp();
    const { sandbox } = fixture;
    const { store } = t;
    const orders = sampleOrders('SOAK', ORDERS);
    enqueue(t, orders);

    // First every request is told to slow down (Retry-After: 1 s), then a mix of faults.
    sandbox.setFaults({ rateLimitRate: 1, retryAfterSeconds: 1, latencyMs: 2 });
    const run = outbox.runUntilIdle(ENVIRONMENT_ID);
    // Wait for a 429 to be recorded, not just for a request to arrive: on a loaded machine the switch below
    // could otherwise land before the sandbox has answered that first request.
    const answered429 = () =>
      store.orders
        .list({ environmentId: ENVIRONMENT_ID, limit: ORDERS })
        .some((order) => store.attempts.list(order.id).some((attempt) => attempt.httpStatus === 429));
    await vi.waitFor(() => expect(answered429()).toBe(true), { timeout: 5_000, interval: 5 });
    sandbox.setFaults({ errorRate: 0.1, rateLimitRate: 0.01, resetRate: 0.05 });
    await vi.waitFor(() => expect(store.orders.countByState(ENVIRONMENT_ID).created).toBeGreaterThanOrEqual(100), {
      timeout: 20_000,
      interval: 20,
    });

    sandbox.setFaults({ outage: true, errorRate: 0, rateLimitRate: 0, resetRate: 0 });
    const before = sandbox.requestCount();
    const startedAt = Date.now();
    await vi.waitFor(() => expect(outbox.progress(ENVIRONMENT_ID).state).toBe('service-unavailable'), {
      timeout: 5_000,
      interval: 10,
    });
    await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));
    const duringOutage = sandbox.requestCount() - before;
    const outageMs = Date.now() - startedAt;
    sandbox.setFaults({ outage: false, latencyMs: 0 });

    const result = await run;
    await outbox.stop();

    expect(result.outcome).toBe('idle');
    expectEachCreatedOnce(
      sandbox,
      store,
      orders.map((o) => o.clinicOrderId),
    );
    expect(result.counts).toMatchObject({ held: 0, rejected: 0, in_doubt: 0, queued: 0, sending: 0 });

    // One condition, one event, one audit entry each way; it resumed by itself.
    expect(attention.map((e) => e.kind)).toEqual(['service-unavailable']);
    const actions = store.audit.page(0, 1_000_000).map((row) => row.action);
    expect(actions.filter((a) => a === 'outbox.service-unavailable')).toHaveLength(1);
    expect(actions.filter((a) => a === 'outbox.service-restored')).toHaveLength(1);

    // Before the breaker opens: failures of `breakerThreshold` different creates (or lookups), plus what was in
    // flight; then one probe per cooldown, the cooldown doubling; and as much again for slack on a noisy machine.
    // A storm would be a retry stream per queued order: some 200 orders here.
    const probes = Math.ceil(Math.log2(outageMs / TUNING.breakerCooldownMs + 1)) + 1;
    const bound = TUNING.breakerThreshold * 2 + TUNING.concurrency + probes;
    expect(duringOutage).toBeGreaterThan(0);
    expect(duringOutage).toBeLessThanOrEqual(bound);

    // Retry-After is a floor: an order answered 429 was not sent again sooner, whatever its backoff said.
    let rateLimited = 0;
    for (const order of store.orders.list({ environmentId: ENVIRONMENT_ID, limit: ORDERS })) {
      const attempts = store.attempts.list(order.id);
      attempts.forEach((attempt, index) => {
        const next = attempts[index + 1];
        if (attempt.httpStatus !== 429 || !next) return;
        rateLimited += 1;
        expect(Date.parse(next.startedAt) - Date.parse(attempt.startedAt)).toBeGreaterThanOrEqual(1_000);
      });
    }
    expect(rateLimited).toBeGreaterThan(0);
  });
});
