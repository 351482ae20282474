import { describe, expect, it } from 'vitest';
import { type ProxiedRequest } from './support/fault-proxy.js';
import {
  ENVIRONMENT_ID,
  enqueue,
  expectEachCreatedOnce,
  sampleOrders,
  sandboxClient,
} from './support/outbox-fixture.js';
import { proxiedSandbox } from './support/proxied-sandbox.js';

/** Orders in doubt are settled by asking the service, never by sending blindly: the exactly-once rules. */

const FAST = {
  concurrency: 2,
  ratePerSecond: 100,
  baseDelayMs: 10,
  maxDelayMs: 100,
  reconcileDelayMs: 10,
  // A miss is believed at once here: the grace for a lagging listing has its own tests (listing-grace.test.ts).
  listingGraceMs: 0,
  breakerCooldownMs: 50,
};

const fixture = proxiedSandbox(FAST);
const { setUp } = fixture;

const isCreateOf = (req: ProxiedRequest, clinicOrderId: string) =>
  req.method === 'PUT' && req.body.includes(`"clinicOrderId":"${clinicOrderId}"`);
const isLookupOf = (req: ProxiedRequest, clinicOrderId: string) =>
  req.url.includes('status-with-clinic-code') && req.url.includes(`clinicOrderId=${clinicOrderId}`);

type SetUp = ReturnType<typeof setUp>;

/** Runs the outbox until nothing is left to do, then stops it. */
async function runToIdle({ outbox }: SetUp): Promise<void> {
  await outbox.runUntilIdle(ENVIRONMENT_ID);
  await outbox.stop();
}

/** The order's attempts, as `operation:outcome:HTTP status`. */
const trail = ({ t }: SetUp, id: number) =>
  t.store.attempts.list(id).map((a) => `${a.operation}:${a.outcome}:${a.httpStatus ?? '-'}`);

describe('orders in doubt', () => {
  it('after a crash, an order left "sending" is looked up: found → created with its id, not found → sent once', async () => {
    const { t, outbox } = setUp();
    const [reached, lost] = sampleOrders('CRASHED', 2);
    const [reachedId, lostId] = enqueue(t, [reached!, lost!]);
    // The crashed process had claimed both and got the first one to the service before it died.
    expect(t.store.orders.claimDue(ENVIRONMENT_ID, 2).map((o) => o.id)).toEqual([reachedId, lostId]);
    const direct = await sandboxClient(fixture.sandbox).sendCreate('v1', reached!.requestBody);
    if (!direct.ok) throw new Error('the direct create failed');

    await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();

    expectEachCreatedOnce(fixture.sandbox, t.store, [reached!.clinicOrderId, lost!.clinicOrderId]);
    expect(t.store.orders.get(reachedId!)?.pharmacyOrderId).toBe(direct.value.orderId);
    expect(t.store.attempts.list(reachedId!).map((a) => [a.operation, a.outcome, a.remoteId])).toEqual([
      ['lookup', 'ok', String(direct.value.orderId)],
    ]);
    expect(t.store.attempts.list(lostId!).map((a) => [a.operation, a.errorMessage])).toEqual([
      ['lookup', 'not found at the service'],
      ['create', null],
    ]);
    // The lookup and the change it led to are one entry.
    const audit = t.store.audit.forOrder(reachedId!);
    expect(audit.map((e) => e.action)).toEqual(['order.interrupted', 'order.reconciled']);
    expect(audit[1]!.details).toMatchObject({
      operation: 'lookup',
      outcome: 'ok',
      remoteId: String(direct.value.orderId),
      fromState: 'in_doubt',
      toState: 'created',
    });
    expect(t.store.audit.forOrder(lostId!).map((e) => e.action)).toEqual([
      'order.interrupted',
      'order.not-found',
      'order.created',
    ]);
  });

  it('creates committed but unanswered (commit-then-drop) are found by lookup and never sent twice', async () => {
    const { t, outbox } = setUp();
    const orders = sampleOrders('DROPPED', 8);
    const ids = enqueue(t, orders);
    fixture.sandbox.setFaults({ commitThenDropRate: 1 });

    await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();

    expectEachCreatedOnce(
      fixture.sandbox,
      t.store,
      orders.map((o) => o.clinicOrderId),
    );
    for (const id of ids) {
      expect(t.store.attempts.list(id).map((a) => `${a.operation}:${a.outcome}`)).toEqual([
        'create:in-doubt',
        'lookup:ok',
      ]);
    }
  });

  it('a lookup that fails keeps the order in doubt; a miss then "duplicate clinicOrderId" means it was created', async () => {
    const run = setUp(fixture.proxy.url);
    const { t, attention } = run;
    const [order] = sampleOrders('RACE', 1);
    const [id] = enqueue(t, [order!]);
    const id0 = order!.clinicOrderId;
    let creates = 0;
    let lookups = 0;
    fixture.setProxyRule((req) => {
      if (isCreateOf(req, id0)) return (creates += 1) === 1 ? 'forward-then-drop' : 'forward';
      if (isLookupOf(req, id0)) {
        lookups += 1;
        // First the status endpoint fails, then it misses the order (as if its commit had not landed yet).
        if (lookups === 1) return { status: 503, body: { error: 'Service Unavailable', status: 503 } };
        if (lookups === 2) return { status: 200, body: [] };
      }
      return 'forward';
    });

    await runToIdle(run);

    expectEachCreatedOnce(fixture.sandbox, t.store, [id0]);
    expect(trail(run, id!)).toEqual([
      'create:in-doubt:-',
      'lookup:retryable:503',
      'lookup:ok:200',
      'create:rejected:400',
      'lookup:ok:200',
    ]);
    expect(attention).toEqual([]);
  });

  it.each([
    // A bare 409 Conflict, with no body at all.
    [409, undefined],
    [400, { message: 'Order already exists for this clinic' }],
    [400, { message: 'ClinicOrderId must be unique' }],
    [422, { error: 'clinic_order_id has already been taken' }],
  ])(
    "a conflict or another service's duplicate (%s %j) after a send that got no answer is looked up, not rejected",
    async (status, body) => {
      const run = setUp(fixture.proxy.url);
      const { t, attention } = run;
      const [order] = sampleOrders(`WORDED-${status}-${body ? Object.values(body)[0]!.length : 0}`, 1);
      const [id] = enqueue(t, [order!]);
      const id0 = order!.clinicOrderId;
      let creates = 0;
      let lookups = 0;
      fixture.setProxyRule((req) => {
        if (isCreateOf(req, id0)) return (creates += 1) === 1 ? 'forward-then-drop' : { status, body };
        if (isLookupOf(req, id0) && (lookups += 1) === 1) return { status: 200, body: [] };
        return 'forward';
      });

      await runToIdle(run);

      expectEachCreatedOnce(fixture.sandbox, t.store, [id0]);
      expect(trail(run, id!)).toEqual([
        'create:in-doubt:-',
        'lookup:ok:200',
        `create:rejected:${status}`,
        'lookup:ok:200',
      ]);
      expect(t.store.orders.get(id!)?.state).toBe('created');
      expect(attention).toEqual([]);
    },
  );

  it('a bare 409 Conflict on an order never in doubt is a real rejection', async () => {
    const run = setUp(fixture.proxy.url);
    const { t, attention } = run;
    const [order] = sampleOrders('CONFLICTED', 1);
    const [id] = enqueue(t, [order!]);
    fixture.setProxyRule((req) =>
      isCreateOf(req, order!.clinicOrderId) ? { status: 409, body: undefined } : 'forward',
    );

    await runToIdle(run);

    expect(t.store.orders.get(id!)).toMatchObject({ state: 'rejected', pharmacyOrderId: null });
    expect(attention).toEqual([expect.objectContaining({ kind: 'order', reason: 'rejected', orderId: id })]);
    expect(fixture.sandbox.listOrders().filter((o) => o.clinicOrderId === order!.clinicOrderId)).toHaveLength(0);
  });

  it('a duplicate clinicOrderId on an order never in doubt is a real rejection', async () => {
    const { t, outbox, attention } = setUp();
    const [order] = sampleOrders('TAKEN', 1);
    const elsewhere = await sandboxClient(fixture.sandbox).sendCreate('v1', order!.requestBody);
    expect(elsewhere.ok).toBe(true);
    const [id] = enqueue(t, [order!]);

    await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();

    expect(t.store.orders.get(id!)).toMatchObject({
      state: 'rejected',
      pharmacyOrderId: null,
      lastError: { kind: 'rejected', field: 'prescription.clinicOrderId' },
    });
    expect(attention).toEqual([expect.objectContaining({ kind: 'order', reason: 'rejected', orderId: id })]);
    expect(fixture.sandbox.listOrders().filter((o) => o.clinicOrderId === order!.clinicOrderId)).toHaveLength(1);
  });
});
