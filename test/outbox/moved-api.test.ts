import { describe, expect, it } from 'vitest';
import {
  allOrders,
  ENVIRONMENT_ID,
  enqueue,
  expectEachCreatedOnce,
  requestCancel,
  sampleOrders,
} from './support/outbox-fixture.js';
import { proxiedSandbox } from './support/proxied-sandbox.js';

/**
 * The service moved its calls to another path (a new API version) for a while: the old path answers the web
 * server's "not found". Nothing is rejected or refused for it; everything waits and goes once the path answers.
 */

const fixture = proxiedSandbox({
  concurrency: 2,
  ratePerSecond: 200,
  baseDelayMs: 10,
  maxDelayMs: 100,
  maxAttempts: 3,
  breakerThreshold: 3,
  breakerCooldownMs: 50,
  reconcileDelayMs: 10,
  // A miss is believed at once here: the grace for a lagging listing has its own tests (listing-grace.test.ts).
  listingGraceMs: 0,
});

/** ASP.NET Core's answer for a path it has no route for. */
const NOT_FOUND = {
  status: 404,
  body: { type: 'https://tools.ietf.org/html/rfc9110#section-15.5.5', title: 'Not Found', status: 404 },
};

describe('an API path that is not there for a while', () => {
  it('creates answered "Not Found" wait and are each created once, none rejected or set aside', async () => {
    const { t, outbox, attention, progress } = fixture.setUp(fixture.proxy.url);
    const orders = sampleOrders('MOVED', 6);
    enqueue(t, orders);
    let creates = 0;
    fixture.setProxyRule((req) => {
      if (!req.url.includes('create-with-clinic')) return 'forward';
      creates += 1;
      return creates <= 12 ? NOT_FOUND : 'forward';
    });
    const result = await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();
    expect(creates).toBeGreaterThan(12);
    expect(result.counts).toMatchObject({ created: 6, rejected: 0, held: 0 });
    expect(attention.filter((event) => event.kind === 'order')).toEqual([]);
    expectEachCreatedOnce(
      fixture.sandbox,
      t.store,
      orders.map((o) => o.clinicOrderId),
    );
    const said = allOrders(t.store).flatMap((order) => t.store.attempts.list(order.id));
    expect(said.find((a) => a.httpStatus === 404)?.errorMessage).toMatch(/check the API base URL and the API version/);
    // While it lasted, the outage said it needs the settings looked at, not only waiting; once over, nothing does.
    const outage = progress.filter((p) => p.state === 'service-unavailable');
    expect(outage.length).toBeGreaterThan(0);
    expect(outage.every((p) => p.needsSettings && /check the API base URL/.test(p.message ?? ''))).toBe(true);
    expect(progress.at(-1)).toMatchObject({ state: 'idle', needsSettings: false });
  });

  it('an outage of the service itself (503) does not say the settings need looking at', async () => {
    const { t, outbox, progress } = fixture.setUp(fixture.proxy.url);
    enqueue(t, sampleOrders('DOWN', 4));
    let creates = 0;
    fixture.setProxyRule((req) => {
      if (!req.url.includes('create-with-clinic')) return 'forward';
      creates += 1;
      return creates <= 8 ? { status: 503, body: { message: 'Service Unavailable' } } : 'forward';
    });
    await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();
    const outage = progress.filter((p) => p.state === 'service-unavailable');
    expect(outage.length).toBeGreaterThan(0);
    expect(outage.some((p) => p.needsSettings)).toBe(false);
  });

  it('a cancel answered "Not Found" is not refused: it waits, goes, and the order is cancelled', async () => {
    const { t, outbox } = fixture.setUp(fixture.proxy.url);
    const [id] = enqueue(t, sampleOrders('MOVED-CANCEL', 1));
    await outbox.runUntilIdle(ENVIRONMENT_ID);
    requestCancel(t.store, id!, 'no longer needed');
    let cancels = 0;
    fixture.setProxyRule((req) => {
      if (!req.url.includes('Order/cancel')) return 'forward';
      cancels += 1;
      return cancels <= 2 ? NOT_FOUND : 'forward';
    });
    outbox.notify(ENVIRONMENT_ID);
    const result = await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();
    expect(result).toMatchObject({ outcome: 'idle', openCancels: 0 });
    expect(t.store.orders.get(id!)?.state).toBe('cancel_sent');
    const { pharmacyOrderId } = t.store.orders.get(id!)!;
    expect(fixture.sandbox.listOrders().find((o) => o.pharmacyOrderId === pharmacyOrderId)?.status).toBe('Cancelled');
  });
});
