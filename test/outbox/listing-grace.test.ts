import { describe, expect, it } from 'vitest';
import { ENVIRONMENT_ID, enqueue, expectEachCreatedOnce, sampleOrders } from './support/outbox-fixture.js';
import { proxiedSandbox } from './support/proxied-sandbox.js';

/**
 * A lookup soon after a send may not list the order yet (a status read lagging the write). Believing that miss
 * sends the order again, and a service that does not refuse a clinic order id it has creates it twice; so a miss
 * is believed only `listingGraceMs` after the send. Real SQLite, real HTTP through a loopback proxy in front of the
 * sandbox; the proxy counts the creates that reach the service, which is what a non-unique service would create.
 */

const GRACE_MS = 400;

const TUNING = {
  concurrency: 2,
  ratePerSecond: 200,
  baseDelayMs: 10,
  maxDelayMs: 200,
  maxAttempts: 8,
  breakerThreshold: 8,
  breakerCooldownMs: 100,
  reconcileDelayMs: 10,
  listingGraceMs: GRACE_MS,
};

const fixture = proxiedSandbox(TUNING);

/** The end of the order's first create as recorded (start + latency), in ms. */
function sentAt(attempt: { startedAt: string; latencyMs: number | null }): number {
  return Date.parse(attempt.startedAt) + (attempt.latencyMs ?? 0);
}

describe('a lookup that lags the write, after a create whose answer was lost', () => {
  it('is asked again after the grace, not sent again: the service gets one create', async () => {
    const { t, outbox } = fixture.setUp(fixture.proxy.url);
    const [order] = sampleOrders('LAG-NO-DUP', 1);
    const [id] = enqueue(t, [order!]);
    let creates = 0;
    let lookups = 0;
    fixture.setProxyRule((req) => {
      if (req.url.includes('create-with-clinic')) {
        creates += 1;
        return 'forward-then-drop';
      }
      // The status side does not list the order yet at the first lookup (10 ms on, well within the grace). Counted,
      // not timed: on a loaded machine a lag in milliseconds let the first lookup find it.
      if (req.url.includes('status-with-clinic-code') && (lookups += 1) === 1) return { status: 200, body: [] };
      return 'forward';
    });

    const result = await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();

    expect(creates).toBe(1);
    expect(result.counts).toMatchObject({ created: 1, queued: 0, in_doubt: 0, held: 0 });
    expectEachCreatedOnce(fixture.sandbox, t.store, [order!.clinicOrderId]);
    const attempts = t.store.attempts.list(id!);
    expect(attempts.map((a) => `${a.operation}:${a.outcome}`)).toEqual(['create:in-doubt', 'lookup:ok', 'lookup:ok']);
    expect(attempts[1]!.errorMessage).toMatch(/not listed by the service yet, soon after it was sent/);
    // The second lookup waited for the grace, counted from the end of the send.
    expect(Date.parse(attempts[2]!.startedAt)).toBeGreaterThanOrEqual(sentAt(attempts[0]!) + GRACE_MS - 1);
    expect(attempts[2]!.remoteId).toBe(String(t.store.orders.get(id!)!.pharmacyOrderId));
  });

  it('a miss after the grace is believed: an order whose create never arrived is sent again, once', async () => {
    const { t, outbox } = fixture.setUp(fixture.proxy.url);
    const [order] = sampleOrders('NEVER-ARRIVED', 1);
    const [id] = enqueue(t, [order!]);
    let creates = 0;
    fixture.setProxyRule((req) => {
      // A gateway's 503 before the service saw the first create; the resend goes through.
      if (req.url.includes('create-with-clinic') && (creates += 1) === 1) {
        return { status: 503, body: { error: 'Service Unavailable', status: 503 } };
      }
      return 'forward';
    });

    const result = await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();

    expect(result.counts).toMatchObject({ created: 1, in_doubt: 0, held: 0 });
    expectEachCreatedOnce(fixture.sandbox, t.store, [order!.clinicOrderId]);
    const attempts = t.store.attempts.list(id!);
    expect(attempts.map((a) => `${a.operation}:${a.outcome}`)).toEqual([
      'create:in-doubt',
      'lookup:ok',
      'lookup:ok',
      'create:ok',
    ]);
    expect(attempts[2]!.errorMessage).toBe('not found at the service');
    expect(Date.parse(attempts[3]!.startedAt)).toBeGreaterThanOrEqual(sentAt(attempts[0]!) + GRACE_MS - 1);
  });
});

describe('an order a stopped process left sending', () => {
  it('has no record of its send: a miss soon after the restart is asked again before it is sent', async () => {
    const { t, outbox } = fixture.setUp(fixture.proxy.url);
    const [order] = sampleOrders('CUT-OFF', 1);
    const [id] = enqueue(t, [order!]);
    // The stopped process had claimed it; whether its create left is not known.
    expect(t.store.orders.claimDue(ENVIRONMENT_ID, 1).map((o) => o.id)).toEqual([id]);
    const startedAt = Date.now();

    const result = await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();

    expect(result.counts).toMatchObject({ created: 1, in_doubt: 0, held: 0 });
    expectEachCreatedOnce(fixture.sandbox, t.store, [order!.clinicOrderId]);
    const attempts = t.store.attempts.list(id!);
    expect(attempts.map((a) => [a.operation, a.errorMessage?.slice(0, 29) ?? null])).toEqual([
      ['lookup', 'not listed by the service yet'],
      ['lookup', 'not found at the service'],
      ['create', null],
    ]);
    expect(Date.parse(attempts[2]!.startedAt)).toBeGreaterThanOrEqual(startedAt + GRACE_MS - 1);
  });
});
