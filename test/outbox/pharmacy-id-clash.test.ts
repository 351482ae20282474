import { describe, expect, it } from 'vitest';
import { ENVIRONMENT_ID, enqueue, sampleOrders } from './support/outbox-fixture.js';
import { proxiedSandbox } from './support/proxied-sandbox.js';

/**
 * A service that names, for one order, the pharmacy order id another order here already has (fault round 2: the
 * store's unique index refused it, the step failed unrecorded, and the order was looked up and sent again every two
 * seconds for good). Real SQLite, real HTTP through a loopback proxy in front of the sandbox.
 */

const fixture = proxiedSandbox({
  concurrency: 1,
  ratePerSecond: 200,
  baseDelayMs: 10,
  maxDelayMs: 100,
  maxAttempts: 8,
  reconcileDelayMs: 10,
  // A miss is believed at once here: the grace for a lagging listing has its own tests (listing-grace.test.ts).
  listingGraceMs: 0,
  breakerCooldownMs: 50,
});

const trail = (t: ReturnType<typeof fixture.setUp>['t'], id: number) =>
  t.store.attempts.list(id).map((a) => `${a.operation}:${a.outcome}`);

describe("another order's pharmacy order id", () => {
  it('answered to a create: looked up, and answered again, held for a person naming the other order; every send on record', async () => {
    const { t, outbox, attention } = fixture.setUp(fixture.proxy.url);
    const [first, second] = sampleOrders('CLASH', 2);
    const [firstId] = enqueue(t, [first!]);
    await outbox.runUntilIdle(ENVIRONMENT_ID);
    const taken = t.store.orders.get(firstId!)!.pharmacyOrderId!;
    // The service answers the second order's every create with the first one's id, and never stores it.
    fixture.setProxyRule((req) =>
      req.url.includes('create-with-clinic') ? { status: 200, body: { orderId: taken } } : 'forward',
    );
    const [secondId] = enqueue(t, [second!]);
    const result = await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();

    expect(result.outcome).toBe('idle');
    const held = t.store.orders.get(secondId!)!;
    expect(held).toMatchObject({ state: 'held', pharmacyOrderId: null });
    expect(held.lastError?.message).toContain(`pharmacy order id ${taken} again, which order ${first!.clinicOrderId}`);
    expect(trail(t, secondId!)).toEqual(['create:in-doubt', 'lookup:ok', 'create:in-doubt']);
    expect(t.store.orders.get(firstId!)!.pharmacyOrderId).toBe(taken);
    expect(attention.filter((a) => a.kind === 'order' && a.orderId === secondId).map((a) => a.kind)).toEqual(['order']);
  });

  it('listed by a lookup: held for a person, not sent again', async () => {
    const { t, outbox } = fixture.setUp(fixture.proxy.url);
    const [first, second] = sampleOrders('CLASH-LOOKUP', 2);
    const [firstId] = enqueue(t, [first!]);
    await outbox.runUntilIdle(ENVIRONMENT_ID);
    const taken = t.store.orders.get(firstId!)!.pharmacyOrderId!;
    fixture.setProxyRule((req) => {
      // The second order's create gets no answer (a 503 before the service), and its lookup names the first's id.
      if (req.url.includes('create-with-clinic')) return { status: 503, body: { error: 'unavailable' } };
      if (req.url.includes('status-with-clinic-code')) {
        const record = {
          clinicOrderId: second!.clinicOrderId,
          pharmacyOrderId: String(taken),
          orderStatus: 'Waiting Clinical Check',
        };
        return { status: 200, body: [record] };
      }
      return 'forward';
    });
    const [secondId] = enqueue(t, [second!]);
    await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();

    const held = t.store.orders.get(secondId!)!;
    expect(held).toMatchObject({ state: 'held', pharmacyOrderId: null });
    expect(held.lastError?.message).toContain(
      `lists this order under pharmacy order id ${taken}, which order ${first!.clinicOrderId}`,
    );
    expect(trail(t, secondId!)).toEqual(['create:in-doubt', 'lookup:ok']);
  });
});
