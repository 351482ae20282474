import { describe, expect, it } from 'vitest';
import { ENVIRONMENT_ID, enqueue, expectEachCreatedOnce, sampleOrders } from './support/outbox-fixture.js';
import { proxiedSandbox } from './support/proxied-sandbox.js';

/**
 * A person releasing a held order ("Send again now", `rx-batch retry`) whose send once went unanswered: the service
 * may have it, so it is looked up first and sent again only if the service does not have it. Before, it was queued
 * and sent at once: a service that does not refuse a clinic order id it has would make a second order. Real SQLite,
 * real HTTP through a loopback proxy that counts the creates reaching the sandbox (what a non-unique service makes).
 */

const MAX_ATTEMPTS = 3;

const fixture = proxiedSandbox({
  concurrency: 1,
  ratePerSecond: 200,
  baseDelayMs: 5,
  maxDelayMs: 20,
  maxAttempts: MAX_ATTEMPTS,
  breakerThreshold: 8,
  breakerCooldownMs: 50,
  reconcileDelayMs: 5,
  listingGraceMs: 0,
});

const LOCKED_OUT = { message: 'the patient is locked out: the pharmacy will not accept orders for them' };
const REFUSED = { status: 400, body: { error: 'Bad request', status: 400 } };

/** Every lookup refused (a 400 about something else): the order is held after MAX_ATTEMPTS of them. */
function refuseLookups(create: 'forward-then-drop' | 'never-arrives') {
  const seen = { creates: 0, lookups: 0 };
  fixture.setProxyRule((req) => {
    if (req.url.includes('create-with-clinic')) {
      seen.creates += 1;
      // A gateway's 503 before the service saw it: in doubt all the same.
      return create === 'never-arrives' ? { status: 503, body: { error: 'Service Unavailable', status: 503 } } : create;
    }
    if (req.url.includes('status-with-clinic-code')) {
      seen.lookups += 1;
      return REFUSED;
    }
    return 'forward';
  });
  return seen;
}

function trail(t: ReturnType<typeof fixture.setUp>['t'], id: number): string[] {
  return t.store.attempts.list(id).map((a) => `${a.operation}:${a.outcome}`);
}

describe('releasing a held order whose send once went unanswered', () => {
  it('looks it up first: the service has it, so it is created with no second create', async () => {
    const { t, outbox } = fixture.setUp(fixture.proxy.url);
    const [order] = sampleOrders('REL-HAS', 1);
    const [id] = enqueue(t, [order!]);
    const seen = refuseLookups('forward-then-drop');
    await outbox.runUntilIdle(ENVIRONMENT_ID);
    expect(t.store.orders.get(id!)!.state).toBe('held');
    expect(seen.creates).toBe(1);

    fixture.setProxyRule((req) => {
      if (req.url.includes('create-with-clinic')) seen.creates += 1;
      return 'forward';
    });
    expect(outbox.retryNow([id!])).toBe(1);
    const released = t.store.orders.get(id!)!;
    expect(released.state).toBe('in_doubt');
    expect(released.lastError?.message).toMatch(/released by a person: looked up at the service first/);
    await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();

    expect(seen.creates).toBe(1);
    expect(t.store.orders.get(id!)!.state).toBe('created');
    expectEachCreatedOnce(fixture.sandbox, t.store, [order!.clinicOrderId]);
    expect(trail(t, id!).slice(-2)).toEqual(['lookup:rejected', 'lookup:ok']);
  });

  it('sends it again once the lookup says the service does not have it', async () => {
    const { t, outbox } = fixture.setUp(fixture.proxy.url);
    const [order] = sampleOrders('REL-NOT', 1);
    const [id] = enqueue(t, [order!]);
    const seen = refuseLookups('never-arrives');
    await outbox.runUntilIdle(ENVIRONMENT_ID);
    expect(t.store.orders.get(id!)!.state).toBe('held');

    fixture.setProxyRule(() => 'forward');
    outbox.retryNow([id!]);
    await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();

    expect(t.store.orders.get(id!)!.state).toBe('created');
    expectEachCreatedOnce(fixture.sandbox, t.store, [order!.clinicOrderId]);
    expect(seen.creates).toBe(1);
    expect(trail(t, id!).slice(-2)).toEqual(['lookup:ok', 'create:ok']);
    expect(t.store.attempts.list(id!).at(-2)!.errorMessage).toBe('not found at the service');
  });

  it('counts refused lookups from the release: held again only after as many as held it, never sent', async () => {
    const { t, outbox } = fixture.setUp(fixture.proxy.url);
    const [order] = sampleOrders('REL-AGAIN', 1);
    const [id] = enqueue(t, [order!]);
    const seen = refuseLookups('forward-then-drop');
    await outbox.runUntilIdle(ENVIRONMENT_ID);
    expect(seen.lookups).toBe(MAX_ATTEMPTS);

    outbox.retryNow([id!]);
    await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();

    expect(t.store.orders.get(id!)!.state).toBe('held');
    expect(seen).toEqual({ creates: 1, lookups: 2 * MAX_ATTEMPTS });
    expect(t.store.orders.get(id!)!.lastError?.message).toMatch(`refused ${MAX_ATTEMPTS} lookups`);
  });
});

describe('releasing an order held for a refusal after an unanswered send', () => {
  it("believes the lookup's miss: the refusal that held it never said the service has it", async () => {
    const { t, outbox } = fixture.setUp(fixture.proxy.url);
    const [order] = sampleOrders('REL-403', 1);
    const [id] = enqueue(t, [order!]);
    let creates = 0;
    let lockedOut = true;
    fixture.setProxyRule((req) => {
      if (!req.url.includes('create-with-clinic')) return 'forward';
      creates += 1;
      if (creates === 1) return { status: 503, body: { error: 'Service Unavailable', status: 503 } };
      // The service's own 403, in its envelope: this order's refusal, not a firewall's.
      if (lockedOut) return { status: 403, body: { error: 'Forbidden', status: 403, details: LOCKED_OUT } };
      return 'forward';
    });
    await outbox.runUntilIdle(ENVIRONMENT_ID);
    expect(t.store.orders.get(id!)!.state).toBe('held');

    // The pharmacy unlocked the patient; the admin sends it again.
    lockedOut = false;
    outbox.retryNow([id!]);
    await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();

    expect(t.store.orders.get(id!)!.state).toBe('created');
    expect(trail(t, id!).slice(-2)).toEqual(['lookup:ok', 'create:ok']);
    expectEachCreatedOnce(fixture.sandbox, t.store, [order!.clinicOrderId]);
  });
});

describe('a lookup that lists the order only in another case', () => {
  it('holds it for a person instead of sending it again; released, it is sent', async () => {
    const { t, outbox, attention } = fixture.setUp(fixture.proxy.url);
    const [order] = sampleOrders('REL-CASE', 1);
    const [id] = enqueue(t, [order!]);
    let creates = 0;
    // The create reached a service that keeps clinic order ids in lower case, and its answer was lost.
    const listed = { clinicOrderId: order!.clinicOrderId.toLowerCase(), pharmacyOrderId: '777', orderStatus: 'New' };
    fixture.setProxyRule((req) => {
      if (req.url.includes('create-with-clinic')) {
        creates += 1;
        return creates === 1 ? { status: 504, body: { error: 'Gateway Timeout', status: 504 } } : 'forward';
      }
      if (req.url.includes('status-with-clinic-code')) return { status: 200, body: creates === 1 ? [listed] : [] };
      return 'forward';
    });
    await outbox.runUntilIdle(ENVIRONMENT_ID);

    const held = t.store.orders.get(id!)!;
    expect(held.state).toBe('held');
    expect(held.lastError?.message).toContain(`lists "${listed.clinicOrderId}" (pharmacy order id 777)`);
    expect(creates).toBe(1);
    expect(attention).toEqual([expect.objectContaining({ kind: 'order', orderId: id })]);

    // A person checked: that is another order. Released, the lookup's near match no longer holds it.
    outbox.retryNow([id!]);
    await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();
    expect(t.store.orders.get(id!)!.state).toBe('created');
    expect(creates).toBe(2);
  });
});

describe('releasing an order whose sends were all answered', () => {
  it('queues it and sends it at once, with no lookup', async () => {
    const { t, outbox } = fixture.setUp(fixture.proxy.url);
    const [order] = sampleOrders('REL-REJ', 1);
    const [id] = enqueue(t, [order!]);
    fixture.setProxyRule((req) =>
      req.url.includes('create-with-clinic')
        ? { status: 400, body: { error: 'Clinic not active yet', status: 400 } }
        : 'forward',
    );
    await outbox.runUntilIdle(ENVIRONMENT_ID);
    expect(t.store.orders.get(id!)!.state).toBe('rejected');

    fixture.setProxyRule(() => 'forward');
    outbox.retryNow([id!]);
    expect(t.store.orders.get(id!)!.state).toBe('queued');
    await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();

    expect(trail(t, id!)).toEqual(['create:rejected', 'create:ok']);
    expectEachCreatedOnce(fixture.sandbox, t.store, [order!.clinicOrderId]);
  });
});
