import { beforeEach, describe, expect, it, vi } from 'vitest';
import { NO_FAULTS } from '../../sandbox/faults.js';
import { ENVIRONMENT_ID, enqueue, expectEachCreatedOnce, sampleOrders } from './support/outbox-fixture.js';
import { proxiedSandbox } from './support/proxied-sandbox.js';

/**
 * A poison order: the service fails it (503) every time while it takes the others, or while it answers lookups
 * of it. It must be set aside once, after maxAttempts, without holding anyone up and without being mistaken for
 * an outage; an order failing during a real outage must never be set aside.
 */

const TUNING = {
  concurrency: 2,
  ratePerSecond: 60,
  baseDelayMs: 5,
  maxDelayMs: 20,
  maxAttempts: 3,
  breakerThreshold: 3,
  breakerCooldownMs: 50,
  reconcileDelayMs: 5,
  // A miss is believed at once here: the grace for a lagging listing has its own tests (listing-grace.test.ts).
  listingGraceMs: 0,
};

const fixture = proxiedSandbox(TUNING);
/** Creates of these clinic order ids fail with 503; lookups pass. */
const poisoned = new Set<string>();
/** Every request about these clinic order ids fails with 503: an outage as far as they can tell. */
const down = new Set<string>();

beforeEach(() => {
  fixture.setProxyRule((req) => {
    const poison = [...poisoned].some((id) => req.method === 'PUT' && req.body.includes(`"clinicOrderId":"${id}"`));
    const outage = [...down].some((id) => req.url.includes(id) || req.body.includes(id));
    return poison || outage ? { status: 503, body: { error: 'Service Unavailable', status: 503 } } : 'forward';
  });
});

/** A fresh store and an outbox sending through the proxy. */
const setUp = () => fixture.setUp(fixture.proxy.url);

describe('a poison order', () => {
  it('is set aside once after maxAttempts failures while others keep being created', async () => {
    const { t, outbox, attention } = setUp();
    const [poison] = sampleOrders('POISON', 1);
    poisoned.add(poison!.clinicOrderId);
    const [poisonId] = enqueue(t, [poison!]);
    outbox.start(ENVIRONMENT_ID);

    // Orders keep arriving (as imports do) while the poison order is retried: its failures count because others
    // are getting through meanwhile. Retries queue behind orders that were already due, so it needs the traffic.
    const others: string[] = [];
    for (let wave = 0; wave < 80 && attention.length === 0; wave += 1) {
      const orders = sampleOrders(`POISON-WAVE-${wave}`, 3);
      enqueue(t, orders);
      others.push(...orders.map((o) => o.clinicOrderId));
      outbox.notify(ENVIRONMENT_ID);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const result = await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();

    expect(result.outcome).toBe('idle');
    expectEachCreatedOnce(fixture.sandbox, t.store, others);
    expect(t.store.orders.get(poisonId!)).toMatchObject({
      state: 'held',
      lastError: {
        kind: 'retryable',
        message: expect.stringMatching(/^gave up after 3 attempts: the service failed \(503\)/) as string,
      },
    });
    expect(attention).toEqual([
      expect.objectContaining({
        kind: 'order',
        reason: 'gave-up',
        orderId: poisonId,
        clinicOrderId: poison!.clinicOrderId,
      }),
    ]);
    expect(t.store.audit.forOrder(poisonId!).filter((e) => e.action === 'order.set-aside')).toHaveLength(1);
    const creates = t.store.attempts.list(poisonId!).filter((a) => a.operation === 'create');
    expect(creates.length).toBeGreaterThanOrEqual(3);
    expect(creates.every((a) => a.httpStatus === 503)).toBe(true);
    expect(t.store.outboxQueue.retryMemory(poisonId!)?.failures).toBe(3);
  });

  it('failing alone with 5xx while its status lookups answer: set aside once after maxAttempts', async () => {
    const { t, outbox, attention } = setUp();
    const [lonely] = sampleOrders('LONELY', 1);
    poisoned.add(lonely!.clinicOrderId);
    const [id] = enqueue(t, [lonely!]);

    const result = await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();

    expect(result.outcome).toBe('idle');
    expect(t.store.orders.get(id!)).toMatchObject({
      state: 'held',
      lastError: { message: expect.stringMatching(/^gave up after 3 attempts: the service failed \(503\)/) as string },
    });
    expect(attention).toEqual([expect.objectContaining({ kind: 'order', reason: 'gave-up', orderId: id })]);
    expect(t.store.audit.forOrder(id!).filter((e) => e.action === 'order.set-aside')).toHaveLength(1);
    // Each counted failure has its evidence next to it: a lookup of the same order that the service answered.
    const attempts = t.store.attempts.list(id!);
    expect(attempts.filter((a) => a.operation === 'create')).toHaveLength(3);
    expect(attempts.filter((a) => a.operation === 'lookup' && a.httpStatus === 200)).toHaveLength(3);
  });

  it('failing alone during an outage (5xx for everything about it) is looked up, never resent blindly nor set aside', async () => {
    const { t, outbox, attention } = setUp();
    const [stranded] = sampleOrders('STRANDED', 1);
    down.add(stranded!.clinicOrderId);
    const [id] = enqueue(t, [stranded!]);

    // It never becomes idle: let its lookups fail more often than maxAttempts (however long that takes on this
    // machine), then stop the run and look at what happened meanwhile.
    const stop = new AbortController();
    const run = outbox.runUntilIdle(ENVIRONMENT_ID, { signal: stop.signal });
    const callsOf = (operation: string) => t.store.attempts.list(id!).filter((a) => a.operation === operation);
    await vi.waitFor(() => expect(callsOf('lookup').length).toBeGreaterThanOrEqual(TUNING.maxAttempts + 1), {
      timeout: 20_000,
      interval: 10,
    });
    stop.abort();
    await expect(run).rejects.toThrow();
    await outbox.stop();

    // The 503 may have come after the service stored it: the order is asked about, never sent again blindly.
    expect(callsOf('create').map((a) => `${a.outcome}:${a.httpStatus}`)).toEqual(['in-doubt:503']);
    expect(callsOf('lookup').every((a) => a.httpStatus === 503)).toBe(true);
    expect(t.store.orders.get(id!)?.state).toBe('in_doubt');
    expect(t.store.outboxQueue.retryMemory(id!)?.failures).toBe(0);
    // Lookups failing are the service failing (the breaker may call it unavailable once); the order is not blamed.
    expect(attention.filter((e) => e.kind !== 'service-unavailable')).toEqual([]);
    expect(attention.length).toBeLessThanOrEqual(1);
  });

  it('failing alone while the service is unreachable is not set aside either', async () => {
    const { t, outbox, attention } = setUp();
    const [offline] = sampleOrders('OFFLINE', 1);
    const [id] = enqueue(t, [offline!]);
    fixture.sandbox.setFaults({ outage: true });
    try {
      const blocked = await outbox.runUntilIdle(ENVIRONMENT_ID, { stopWhenBlocked: true });
      expect(blocked).toMatchObject({ outcome: 'blocked', state: 'service-unavailable' });
    } finally {
      await outbox.stop();
      fixture.sandbox.setFaults(NO_FAULTS);
    }
    // A reset after sending leaves it in doubt (to be looked up); either way it is kept, not set aside.
    expect(['queued', 'in_doubt']).toContain(t.store.orders.get(id!)?.state);
    expect(t.store.outboxQueue.retryMemory(id!)?.failures).toBe(0);
    expect(attention.map((e) => e.kind)).toEqual(['service-unavailable']);
  });
});
