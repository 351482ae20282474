import { describe, expect, it } from 'vitest';
import { ENVIRONMENT_ID, enqueue, expectEachCreatedOnce, sampleOrders } from './support/outbox-fixture.js';
import { proxiedSandbox } from './support/proxied-sandbox.js';

/**
 * Lookups of a service that does not filter by clinic order id (it lists the clinic's orders), or that pads the ids
 * it gives back ("A-1   ", a fixed-width column): an order in doubt is sent if it is not among them, found if it is,
 * and created once either way, where it stayed in doubt for good (and one whose create never arrived was never sent).
 */

const fixture = proxiedSandbox({
  concurrency: 1,
  ratePerSecond: 200,
  baseDelayMs: 10,
  maxDelayMs: 100,
  maxAttempts: 8,
  breakerThreshold: 8,
  breakerCooldownMs: 50,
  reconcileDelayMs: 10,
  // A miss is believed at once here: the grace for a lagging listing has its own tests (listing-grace.test.ts).
  listingGraceMs: 0,
});

/** Stops a run that would otherwise look orders up for ever, after far more lookups than these tests need. */
function lookupLimit(limit: number) {
  let lookups = 0;
  const enough = new AbortController();
  return {
    signal: enough.signal,
    count: () => {
      lookups += 1;
      if (lookups > limit) enough.abort();
    },
  };
}

const THE_CLINICS_OTHER_ORDERS = [
  { clinicOrderId: 'OTHER-0001', pharmacyOrderId: '1', orderStatus: 'Prescription Processed' },
  { clinicOrderId: 'OTHER-0002', pharmacyOrderId: '2', orderStatus: 'Waiting Clinical Check' },
];

describe('a lookup that lists the clinic’s other orders', () => {
  it('an order whose create never arrived is not among them: it is sent again and created once', async () => {
    const { t, outbox } = fixture.setUp(fixture.proxy.url);
    const orders = sampleOrders('UNFILTERED', 2);
    enqueue(t, orders);
    const limit = lookupLimit(20);
    let creates = 0;
    fixture.setProxyRule((req) => {
      if (req.url.includes('create-with-clinic')) {
        creates += 1;
        return creates <= 2 ? { status: 503, body: { error: 'unavailable', status: 503 } } : 'forward';
      }
      if (req.url.includes('status-with-clinic-code')) {
        limit.count();
        return {
          rewrite: (body) => JSON.stringify([...THE_CLINICS_OTHER_ORDERS, ...(JSON.parse(body) as unknown[])]),
        };
      }
      return 'forward';
    });
    const result = await outbox.runUntilIdle(ENVIRONMENT_ID, { signal: limit.signal });
    await outbox.stop();
    expect(result.counts).toMatchObject({ created: 2, in_doubt: 0 });
    expectEachCreatedOnce(
      fixture.sandbox,
      t.store,
      orders.map((o) => o.clinicOrderId),
    );
  });

  it('one that did arrive, listed with its clinic order id padded with spaces, is found with its id', async () => {
    const { t, outbox } = fixture.setUp(fixture.proxy.url);
    const orders = sampleOrders('PADDED', 2);
    enqueue(t, orders);
    const limit = lookupLimit(20);
    fixture.setProxyRule((req) => {
      if (req.url.includes('create-with-clinic')) return 'forward-then-drop';
      if (req.url.includes('status-with-clinic-code')) {
        limit.count();
        return {
          rewrite: (body) =>
            JSON.stringify(
              (JSON.parse(body) as Array<{ clinicOrderId: string }>).map((record) => ({
                ...record,
                clinicOrderId: record.clinicOrderId.padEnd(20),
              })),
            ),
        };
      }
      return 'forward';
    });
    const result = await outbox.runUntilIdle(ENVIRONMENT_ID, { signal: limit.signal });
    await outbox.stop();
    expect(result.counts).toMatchObject({ created: 2, in_doubt: 0 });
    expectEachCreatedOnce(
      fixture.sandbox,
      t.store,
      orders.map((o) => o.clinicOrderId),
    );
  });
});

describe('a lookup that lists several orders under one clinic order id', () => {
  it('the order takes the first and its lookup names the others, which may be duplicates at the service', async () => {
    const { t, outbox } = fixture.setUp(fixture.proxy.url);
    const [id] = enqueue(t, sampleOrders('LISTED-TWICE', 1));
    const limit = lookupLimit(20);
    fixture.setProxyRule((req) => {
      if (req.url.includes('create-with-clinic')) return 'forward-then-drop';
      if (req.url.includes('status-with-clinic-code')) {
        limit.count();
        return {
          rewrite: (body) => {
            const listed = JSON.parse(body) as Array<{ clinicOrderId: string }>;
            return JSON.stringify([
              ...listed,
              ...listed.map((record) => ({ ...record, pharmacyOrderId: '900000001' })),
            ]);
          },
        };
      }
      return 'forward';
    });
    const result = await outbox.runUntilIdle(ENVIRONMENT_ID, { signal: limit.signal });
    await outbox.stop();
    expect(result.counts).toMatchObject({ created: 1, in_doubt: 0 });
    const { pharmacyOrderId } = t.store.orders.get(id!)!;
    const lookup = t.store.attempts.list(id!).find((attempt) => attempt.operation === 'lookup');
    expect(lookup).toMatchObject({ outcome: 'ok', remoteId: String(pharmacyOrderId) });
    expect(lookup?.errorMessage).toBe(
      `the service lists 2 orders under this clinic order id (pharmacy order ids ${pharmacyOrderId}, 900000001): taken as ${pharmacyOrderId}, the first; the others may be duplicates to cancel at the service`,
    );
  });
});
