import { describe, expect, it } from 'vitest';
import { ENVIRONMENT_ID, enqueue, sampleOrders } from './support/outbox-fixture.js';
import { proxiedSandbox } from './support/proxied-sandbox.js';

/**
 * A service whose pharmacy order ids this version cannot keep (64-bit ids past 2^53, or not digits): the create's
 * answer cannot be read as an id, so the order is looked up; the lookup lists it. It is never sent again, and it is
 * set aside once, saying why, where it was looked up for good as "lists orders without saying which".
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
});

describe('pharmacy order ids this version cannot keep', () => {
  for (const id of ['12345678901234567890', 'PH-7F3A-0042']) {
    it(`"${id}": the order is set aside once as at the service, never sent twice`, async () => {
      const { t, outbox, attention } = fixture.setUp(fixture.proxy.url);
      const [orderId] = enqueue(t, sampleOrders(`WIDE-${id.length}`, 1));
      const { clinicOrderId } = t.store.orders.get(orderId!)!;
      let creates = 0;
      let lookups = 0;
      // Looked up again and again (as before) would never be idle: stop after far more lookups than needed.
      const enough = new AbortController();
      fixture.setProxyRule((req) => {
        if (req.url.includes('create-with-clinic')) {
          creates += 1;
          // Stored at the sandbox, answered with the service's own id: a JSON number when it is digits.
          return { rewrite: () => `{"orderId":${/^\d+$/.test(id) ? id : JSON.stringify(id)}}` };
        }
        if (req.url.includes('status-with-clinic-code')) {
          lookups += 1;
          if (lookups > 10) enough.abort();
          return {
            rewrite: (body) =>
              JSON.stringify(
                (JSON.parse(body) as Array<Record<string, unknown>>).map((record) => ({
                  ...record,
                  pharmacyOrderId: id,
                })),
              ),
          };
        }
        return 'forward';
      });
      const result = await outbox.runUntilIdle(ENVIRONMENT_ID, { signal: enough.signal });
      await outbox.stop();
      expect(creates).toBe(1);
      expect(fixture.sandbox.listOrders().filter((o) => o.clinicOrderId === clinicOrderId)).toHaveLength(1);
      expect(result).toMatchObject({ outcome: 'idle', counts: { held: 1, in_doubt: 0, queued: 0 } });
      expect(lookups).toBe(1);
      const order = t.store.orders.get(orderId!)!;
      expect(order.lastError?.message).toBe(
        `the service has this order, as pharmacy order id "${id}", which this version cannot keep (it keeps ids of up to 15 digits): it is not sent again; track or cancel it at the service`,
      );
      expect(attention.filter((event) => event.kind === 'order')).toHaveLength(1);
    });
  }
});
