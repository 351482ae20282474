import { describe, expect, it } from 'vitest';
import {
  ENVIRONMENT_ID,
  enqueue,
  expectEachCreatedOnce,
  requestCancel,
  sampleOrders,
} from './support/outbox-fixture.js';
import { proxiedSandbox, runFor } from './support/proxied-sandbox.js';

/**
 * A service (or the gateway in front of it) that answers 200 to everything and writes its error envelope into the
 * body: `200 {"error": …, "status": 400}`. Read as the status it names, as if it were the status line. Before, a
 * create so refused was in doubt, looked up and sent again for good with its reason never shown; a lookup so
 * answered "not found" kept an order that never arrived in doubt for good, never sent; a cancel so refused passed as
 * taken (every field of a status record is optional). Real SQLite, real HTTP through a loopback proxy.
 */

const fixture = proxiedSandbox({
  concurrency: 1,
  ratePerSecond: 200,
  baseDelayMs: 10,
  maxDelayMs: 200,
  maxAttempts: 8,
  breakerThreshold: 8,
  breakerCooldownMs: 100,
  reconcileDelayMs: 10,
  listingGraceMs: 0,
});

describe('an error envelope in a 200', () => {
  it("to a create is the service's refusal: rejected with its words and field, sent once, never looked up", async () => {
    const { t, outbox } = fixture.setUp(fixture.proxy.url);
    const [id] = enqueue(t, sampleOrders('ENV200-REFUSED', 1));
    const received: string[] = [];
    fixture.setProxyRule((req) => {
      received.push(req.url.split('?')[0]!.split('/').pop()!);
      if (!req.url.includes('create-with-clinic')) return 'forward';
      const message = 'Courier not recognised';
      const details = { field: 'prescription.courierCode', message };
      return { status: 200, body: { error: 'Invalid courier code', status: 400, details } };
    });

    const result = await runFor(outbox);

    expect(result.outcome).toBe('idle');
    expect(received).toEqual(['create-with-clinic']);
    const order = t.store.orders.get(id!)!;
    expect(order.state).toBe('rejected');
    expect(order.lastError).toMatchObject({
      kind: 'rejected',
      message: expect.stringContaining('Invalid courier code: Courier not recognised') as unknown,
      field: 'prescription.courierCode',
    });
    expect(fixture.sandbox.listOrders().filter((o) => o.clinicOrderId === 'ENV200-REFUSED-1')).toEqual([]);
  });

  it('to a lookup saying the order is not found is a miss: the order whose create never arrived is sent', async () => {
    const { t, outbox } = fixture.setUp(fixture.proxy.url);
    const orders = sampleOrders('ENV200-MISS', 1);
    enqueue(t, orders);
    let creates = 0;
    fixture.setProxyRule((req) => {
      if (req.url.includes('create-with-clinic') && req.body.includes('ENV200-MISS')) {
        creates += 1;
        // A gateway's 503 before the service saw it: in doubt, so the order is looked up first.
        return creates === 1 ? { status: 503, body: { error: 'unavailable', status: 503 } } : 'forward';
      }
      if (req.url.includes('clinicOrderId=ENV200-MISS') && creates === 1) {
        return { status: 200, body: { error: 'Order not found', status: 404 } };
      }
      return 'forward';
    });

    const result = await runFor(outbox);

    expect(result.outcome).toBe('idle');
    expect(creates).toBe(2);
    expectEachCreatedOnce(
      fixture.sandbox,
      t.store,
      orders.map((o) => o.clinicOrderId),
    );
  });

  it('to a cancel is a refusal checked against the status, not a cancel taken', async () => {
    const { t, outbox } = fixture.setUp(fixture.proxy.url);
    const [id] = enqueue(t, sampleOrders('ENV200-CANCEL', 1));
    await outbox.runUntilIdle(ENVIRONMENT_ID);
    requestCancel(t.store, id!, 'no longer needed');
    fixture.setProxyRule((req) =>
      req.url.includes('Order/cancel')
        ? { status: 200, body: { error: 'Order cannot be cancelled: already with the courier', status: 400 } }
        : 'forward',
    );
    outbox.notify(ENVIRONMENT_ID);
    const result = await runFor(outbox);

    expect(result).toMatchObject({ outcome: 'idle', openCancels: 0 });
    const order = t.store.orders.get(id!)!;
    // Where before it was `cancel_sent`, watched as a cancel on its way while the pharmacy went on with the order.
    expect(order.state).toBe('cancel_refused');
    expect(order.lastError?.message).toContain('already with the courier');
  });
});
