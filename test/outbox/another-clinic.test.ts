import { describe, expect, it } from 'vitest';
import { allOrders, ENVIRONMENT_ID, enqueue, requestCancel, sampleOrders } from './support/outbox-fixture.js';
import { proxiedSandbox } from './support/proxied-sandbox.js';
import type { ProxyDecision } from './support/fault-proxy.js';

/**
 * A service that ignores the clinicCode filter of `status-with-clinic-code` and lists another clinic's order under
 * the same clinic order id (clinic order ids are unique per clinic only), saying whose it is: an order in doubt is
 * never taken as created with that order's pharmacy id.
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
  // A miss is believed at once here: the grace for a lagging listing has its own tests (listing-grace.test.ts).
  listingGraceMs: 0,
});

/**
 * Another clinic sends orders with these clinic order ids first (so theirs have the smaller pharmacy ids), and the
 * lookups then list that clinic's order ahead of whatever the sandbox, which honours the filter, answers.
 */
async function anotherClinicHas(prefix: string): Promise<(req: { url: string }) => ProxyDecision | undefined> {
  const { t, outbox } = fixture.setUp(fixture.proxy.url);
  enqueue(t, sampleOrders(prefix, 2, 'CLINIC-ELSEWHERE'));
  await outbox.runUntilIdle(ENVIRONMENT_ID);
  await outbox.stop();
  const theirs = new Map(allOrders(t.store).map((order) => [order.clinicOrderId, order.pharmacyOrderId]));
  expect(theirs.size).toBe(2);
  return (req) => {
    if (!req.url.includes('status-with-clinic-code')) return undefined;
    const clinicOrderId = new URL(req.url, 'http://x').searchParams.get('clinicOrderId') ?? '';
    const other = {
      clinicOrderId,
      clinicCode: 'CLINIC-ELSEWHERE',
      pharmacyOrderId: String(theirs.get(clinicOrderId)),
      orderStatus: 'Prescription at Pharmacy',
    };
    return { rewrite: (body) => JSON.stringify([other, ...(JSON.parse(body) as unknown[])]) };
  };
}

/** Each order created once at the sandbox in our clinic, and created here with that order's pharmacy id. */
function expectOwnOrdersCreated(store: Parameters<typeof allOrders>[0], clinicOrderIds: string[]): void {
  const ours = fixture.sandbox.listOrders().filter((order) => order.clinicCode === 'CLINIC-A');
  const local = allOrders(store).map((order) => ({
    clinicOrderId: order.clinicOrderId,
    state: order.state,
    pharmacyOrderId: order.pharmacyOrderId,
  }));
  expect(local).toEqual(
    clinicOrderIds.map((clinicOrderId) => {
      const remote = ours.filter((order) => order.clinicOrderId === clinicOrderId);
      expect(remote).toHaveLength(1);
      return { clinicOrderId, state: 'created', pharmacyOrderId: remote[0]!.pharmacyOrderId };
    }),
  );
}

describe("another clinic's order under the same clinic order id", () => {
  it('a create that never arrived is not adopted as that order: it is sent, and created once with its own id', async () => {
    const listsTheirs = await anotherClinicHas('SHARED-ID');
    const { t, outbox } = fixture.setUp(fixture.proxy.url);
    const orders = sampleOrders('SHARED-ID', 2);
    enqueue(t, orders);
    let creates = 0;
    fixture.setProxyRule((req) => {
      if (req.url.includes('create-with-clinic')) {
        creates += 1;
        // A gateway's 503 before the service saw it: in doubt, so each order is looked up first.
        return creates <= 2 ? { status: 503, body: { error: 'unavailable', status: 503 } } : 'forward';
      }
      return listsTheirs(req) ?? 'forward';
    });
    const result = await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();
    expect(result.counts).toMatchObject({ created: 2, in_doubt: 0 });
    // Sent after its lookup, where before it was marked created with the other clinic's id and never sent.
    expectOwnOrdersCreated(
      t.store,
      orders.map((o) => o.clinicOrderId),
    );
  });

  it('a create that did arrive takes its own id from the lookup, not the other clinic order listed first', async () => {
    const listsTheirs = await anotherClinicHas('SHARED-LANDED');
    const { t, outbox } = fixture.setUp(fixture.proxy.url);
    const orders = sampleOrders('SHARED-LANDED', 2);
    enqueue(t, orders);
    fixture.setProxyRule((req) =>
      req.url.includes('create-with-clinic') ? 'forward-then-drop' : (listsTheirs(req) ?? 'forward'),
    );
    const result = await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();
    expect(result.counts).toMatchObject({ created: 2, in_doubt: 0 });
    expectOwnOrdersCreated(
      t.store,
      orders.map((o) => o.clinicOrderId),
    );
  });
});

describe("a cancel's status check answered in another clinic's name", () => {
  it("a lost cancel is not taken as done on a 'Cancelled' that says it is another clinic's: sent again", async () => {
    const { t, outbox } = fixture.setUp(fixture.proxy.url);
    const [id] = enqueue(t, sampleOrders('CANCEL-CLINIC', 1));
    await outbox.runUntilIdle(ENVIRONMENT_ID);
    const { pharmacyOrderId, clinicOrderId } = t.store.orders.get(id!)!;
    requestCancel(t.store, id!, 'no longer needed');
    const elsewhere = {
      clinicOrderId,
      clinicCode: 'CLINIC-ELSEWHERE',
      pharmacyOrderId: String(pharmacyOrderId),
      orderStatus: 'Cancelled',
    };
    let cancels = 0;
    fixture.setProxyRule((req) => {
      if (req.url.includes('Order/cancel')) {
        cancels += 1;
        // The first cancel gets a 503 (it may have acted): its status is checked before it goes again.
        return cancels === 1 ? { status: 503, body: { error: 'busy', status: 503 } } : 'forward';
      }
      if (req.url.includes('status-with-clinic-code')) return { status: 200, body: [elsewhere] };
      return 'forward';
    });
    outbox.notify(ENVIRONMENT_ID);
    const result = await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();

    expect(result).toMatchObject({ outcome: 'idle', openCancels: 0 });
    // Sent again, so the pharmacy has it cancelled, where taking that record's word left it live.
    const remote = fixture.sandbox.listOrders().find((o) => o.pharmacyOrderId === pharmacyOrderId);
    expect(remote?.status).toBe('Cancelled');
    expect(cancels).toBe(2);
  });
});
