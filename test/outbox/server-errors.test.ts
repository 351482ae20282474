import { describe, expect, it } from 'vitest';
import type { AttemptRecord } from '../../main/core/store/attempts-repo.js';
import type { Store } from '../../main/core/store/store.js';
import { type ProxiedRequest } from './support/fault-proxy.js';
import {
  ENVIRONMENT_ID,
  allOrders,
  enqueue,
  expectEachCreatedOnce,
  sampleOrders,
  sandboxClient,
  requestCancel,
} from './support/outbox-fixture.js';
import { proxiedSandbox } from './support/proxied-sandbox.js';

/**
 * A 5xx is not "nothing happened": gateways answer 502/503/504, and services 500, after the backend committed. A
 * create or cancel that got one may have taken effect, so it is looked up before it is sent again, and a later
 * "duplicate clinicOrderId" after it means "created", never "rejected". The sandbox's commitThenStatus fault stores
 * the order and then answers the status.
 */

const TUNING = {
  concurrency: 4,
  ratePerSecond: 200,
  baseDelayMs: 10,
  maxDelayMs: 200,
  maxAttempts: 8,
  breakerThreshold: 8,
  breakerCooldownMs: 100,
  reconcileDelayMs: 10,
  // A miss is believed at once here: the grace for a lagging listing has its own tests (listing-grace.test.ts).
  listingGraceMs: 0,
};

const fixture = proxiedSandbox(TUNING);
const { setUp } = fixture;

const described = (a: AttemptRecord) => `${a.operation}:${a.outcome}:${a.httpStatus ?? '-'}`;
const attemptsOf = (store: Store, orderId: number) => store.attempts.list(orderId).map(described);
const isLookupOf = (req: ProxiedRequest, clinicOrderId: string) =>
  req.url.includes('status-with-clinic-code') && req.url.includes(`clinicOrderId=${clinicOrderId}`);

describe('a create answered 5xx after the service stored it', () => {
  it.each([500, 502, 503, 504])(
    'status %i, 4 in flight, 200–600 ms: every order created once, none rejected, each 5xx looked up before a resend',
    async (status) => {
      const { t, outbox, attention } = setUp();
      const orders = sampleOrders(`STORED-${status}`, 24);
      const ids = enqueue(t, orders);
      fixture.sandbox.setFaults({
        commitThenStatusRate: 0.4,
        commitThenStatus: status,
        latencyMs: 200,
        latencyJitterMs: 400,
      });

      const result = await outbox.runUntilIdle(ENVIRONMENT_ID);
      await outbox.stop();

      expect(result.outcome).toBe('idle');
      expect(result.counts).toMatchObject({ created: 24, rejected: 0, held: 0, in_doubt: 0, queued: 0 });
      // Counted at the fixture.sandbox by clinic order id: each exactly once, with the id the local order holds.
      expectEachCreatedOnce(
        fixture.sandbox,
        t.store,
        orders.map((o) => o.clinicOrderId),
      );
      expect(attention).toEqual([]);
      let answered5xx = 0;
      for (const id of ids) {
        const attempts = t.store.attempts.list(id);
        attempts.forEach((attempt, index) => {
          if (attempt.operation !== 'create' || attempt.httpStatus !== status) return;
          answered5xx += 1;
          expect(attempt.outcome).toBe('in-doubt');
          // The next call about this order asks the service; it is never a blind resend.
          expect(attempts[index + 1]?.operation).toBe('lookup');
        });
        expect(attempts.filter((a) => a.operation === 'create' && a.outcome === 'rejected')).toEqual([]);
      }
      expect(answered5xx).toBeGreaterThan(0);
    },
    60_000,
  );

  it('a 502 whose lookup misses it (a lagging read), then "duplicate clinicOrderId": created with the service’s id', async () => {
    const { t, outbox, attention } = setUp(fixture.proxy.url);
    const [order] = sampleOrders('LAGGING', 1);
    const [id] = enqueue(t, [order!]);
    const id0 = order!.clinicOrderId;
    fixture.sandbox.setFaults({ commitThenStatusRate: 1, commitThenStatus: 502 });
    let lookups = 0;
    fixture.setProxyRule((req) => {
      // The first lookup misses the order, as a read replica behind the commit would.
      if (isLookupOf(req, id0) && (lookups += 1) === 1) return { status: 200, body: [] };
      return 'forward';
    });

    const result = await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();

    expect(result.outcome).toBe('idle');
    expectEachCreatedOnce(fixture.sandbox, t.store, [id0]);
    expect(attemptsOf(t.store, id!)).toEqual([
      'create:in-doubt:502',
      'lookup:ok:200',
      'create:rejected:400',
      'lookup:ok:200',
    ]);
    expect(t.store.audit.forOrder(id!).map((e) => e.action)).not.toContain('order.rejected');
    expect(attention).toEqual([]);
  });

  it('an order an older version queued again after a 502 is looked up at start, not sent', async () => {
    const { t, outbox } = setUp();
    const [order] = sampleOrders('UPGRADED', 1);
    // The 502 stored it at the service; the old rule put it back in the queue without remembering that.
    const direct = await sandboxClient(fixture.sandbox).sendCreate('v1', order!.requestBody);
    if (!direct.ok) throw new Error('the direct create failed');
    const [id] = enqueue(t, [order!]);
    recordOldStyle502(t.store, id!);

    const result = await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();

    expect(result.outcome).toBe('idle');
    expectEachCreatedOnce(fixture.sandbox, t.store, [order!.clinicOrderId]);
    expect(t.store.orders.get(id!)?.pharmacyOrderId).toBe(direct.value.orderId);
    expect(attemptsOf(t.store, id!)).toEqual(['create:retryable:502', 'lookup:ok:200']);
  });

  it('an order the old rule rejected as a duplicate after a 502 is put right by "retry now": created, not sent twice', async () => {
    const { t, outbox, attention } = setUp();
    const [order] = sampleOrders('WRONGLY-REJECTED', 1);
    const direct = await sandboxClient(fixture.sandbox).sendCreate('v1', order!.requestBody);
    if (!direct.ok) throw new Error('the direct create failed');
    const [id] = enqueue(t, [order!]);
    recordOldStyle502(t.store, id!);
    // What the old rule did next: sent it again, got "duplicate", rejected it.
    t.store.inTransaction(() => {
      t.store.orders.transition(
        id!,
        ['queued'],
        'rejected',
        { lastError: { kind: 'rejected', message: 'duplicate clinicOrderId', field: 'prescription.clinicOrderId' } },
        { actor: 'submitter', action: 'order.rejected' },
      );
    });
    await outbox.runUntilIdle(ENVIRONMENT_ID);

    expect(outbox.retryNow([id!])).toBe(1);
    const result = await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();

    expect(result.outcome).toBe('idle');
    expectEachCreatedOnce(fixture.sandbox, t.store, [order!.clinicOrderId]);
    expect(t.store.orders.get(id!)?.pharmacyOrderId).toBe(direct.value.orderId);
    expect(attemptsOf(t.store, id!)).toEqual(['create:retryable:502', 'create:rejected:400', 'lookup:ok:200']);
    expect(attention).toEqual([]);
  });
});

describe('a cancel answered 5xx', () => {
  it('after the service cancelled it: the status is checked before anything is sent again, and it is done', async () => {
    const { t, outbox, attention } = setUp();
    const [id] = enqueue(t, sampleOrders('CANCEL-STORED', 1));
    await outbox.runUntilIdle(ENVIRONMENT_ID);

    fixture.sandbox.setFaults({ commitThenStatusRate: 1, commitThenStatus: 504 });
    requestCancel(t.store, id!, 'Prescribed twice');
    outbox.notify(ENVIRONMENT_ID);
    const result = await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();

    expect(result).toMatchObject({ outcome: 'idle', openCancels: 0 });
    expect(t.store.orders.get(id!)?.state).toBe('cancel_sent');
    expect(t.store.cancellations.list(id!)).toEqual([expect.objectContaining({ state: 'sent' })]);
    expect(attemptsOf(t.store, id!)).toEqual(['create:ok:200', 'cancel:in-doubt:504', 'status:ok:200']);
    const pharmacyOrderId = t.store.orders.get(id!)?.pharmacyOrderId;
    expect(fixture.sandbox.listOrders().find((o) => o.pharmacyOrderId === pharmacyOrderId)).toMatchObject({
      status: 'Cancelled',
      cancelReason: 'Prescribed twice',
    });
    expect(attention).toEqual([]);
  });

  it('that did not take effect: the status check shows it open, so the cancel is sent again', async () => {
    const { t, outbox, attention } = setUp(fixture.proxy.url);
    const [id] = enqueue(t, sampleOrders('CANCEL-FAILED', 1));
    await outbox.runUntilIdle(ENVIRONMENT_ID);
    let cancels = 0;
    fixture.setProxyRule((req) =>
      req.url.includes('Order/cancel') && (cancels += 1) === 1
        ? { status: 503, body: { error: 'Service Unavailable', status: 503 } }
        : 'forward',
    );

    requestCancel(t.store, id!, 'Wrong patient');
    outbox.notify(ENVIRONMENT_ID);
    await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();

    expect(t.store.orders.get(id!)?.state).toBe('cancel_sent');
    expect(attemptsOf(t.store, id!)).toEqual([
      'create:ok:200',
      'cancel:in-doubt:503',
      'status:ok:200',
      'cancel:ok:200',
    ]);
    expect(attention).toEqual([]);
  });
});

/** As the outbox before this rule recorded a 502 to a create: retryable, back in the queue, not remembered. */
function recordOldStyle502(store: Store, orderId: number): void {
  const message = 'the service failed (502): Bad Gateway';
  store.inTransaction(() => {
    expect(store.orders.claimForSending(ENVIRONMENT_ID, 1).map((o) => o.id)).toEqual([orderId]);
    store.attempts.recordWithTransition(
      {
        orderId,
        operation: 'create',
        startedAt: new Date(),
        latencyMs: 12,
        httpStatus: 502,
        outcome: 'retryable',
        errorMessage: message,
        remoteId: null,
      },
      () => ({
        from: ['sending'],
        to: 'queued',
        patch: { lastError: { kind: 'retryable', message }, nextAttemptAt: new Date() },
        action: 'order.retry-scheduled',
      }),
    );
  });
  expect(store.outboxQueue.retryMemory(orderId)?.wasInDoubt).toBe(false);
  expect(allOrders(store).find((o) => o.id === orderId)?.state).toBe('queued');
}
