import { afterEach, describe, expect, it } from 'vitest';
import { verifyAuditChain } from '../audit/verify-chain.js';
import type { OrderState } from '../store/order-state.js';
import { enqueueOrders, type Store } from '../store/store.js';
import { removeDir, sampleOrder, storeWithBatch } from '../store/testing/store-fixtures.js';
import { applyStatusRecord } from './apply-status.js';
import { requestCancel } from './cancel-request.js';

let store: Store;
let dataDir: string;
let batchId: number;
let nextPharmacyId = 9000;

afterEach(() => {
  store.close();
  removeDir(dataDir);
});

/** An order moved into `state` the way the outbox would leave it (with a pharmacy id where the service has it). */
function orderIn(state: OrderState): number {
  const [id] = enqueueOrders(store, batchId, [sampleOrder({ state: state === 'ready' ? 'ready' : 'queued' })]);
  if (state === 'ready' || state === 'queued') return id!;
  const atService = ['created', 'cancel_requested', 'cancel_sent', 'cancelled', 'cancel_refused'].includes(state);
  const moved = store.orders.transition(
    id!,
    ['queued'],
    state,
    atService ? { pharmacyOrderId: (nextPharmacyId += 1) } : {},
    { actor: 'submitter', action: 'test.setup' },
  );
  if (!moved) throw new Error(`could not set up an order in ${state}`);
  return id!;
}

describe('requestCancel (offline: nothing is sent here)', () => {
  it('withdraws orders that were never sent, whatever stage they reached locally', () => {
    ({ store, dataDir, batchId } = storeWithBatch());
    const ids = (['ready', 'queued', 'held', 'rejected'] as const).map(orderIn);
    const results = requestCancel(store, ids, 'patient changed their mind');
    expect(results.map((r) => r.outcome)).toEqual(['withdrawn', 'withdrawn', 'withdrawn', 'withdrawn']);
    for (const id of ids) {
      expect(store.orders.get(id)?.state).toBe('withdrawn');
      expect(store.cancellations.list(id)).toEqual([]);
      const entry = store.audit.forOrder(id).at(-1)!;
      expect(entry).toMatchObject({ actor: 'user', action: 'order.withdrawn', details: { toState: 'withdrawn' } });
    }
  });

  it('refuses to withdraw a held or rejected order that a send may have reached the service with', () => {
    ({ store, dataDir, batchId } = storeWithBatch());
    const attempt = (orderId: number, httpStatus: number | null, outcome: 'in-doubt' | 'retryable' | 'rejected') =>
      store.attempts.record({ orderId, operation: 'create', startedAt: new Date(), latencyMs: 1, httpStatus, outcome });
    // Set aside after creates that got no answer, then 5xx: the first may have landed.
    const gaveUp = orderIn('held');
    attempt(gaveUp, null, 'in-doubt');
    attempt(gaveUp, 503, 'retryable');
    // Rejected after a resend, though the service has given its id.
    const [known] = enqueueOrders(store, batchId, [sampleOrder({ state: 'queued' })]) as [number];
    store.orders.transition(
      known,
      ['queued'],
      'rejected',
      { pharmacyOrderId: 4711 },
      {
        actor: 'submitter',
        action: 'test.setup',
      },
    );
    // Rejected at its only send, a plain 400: never at the service.
    const refused = orderIn('rejected');
    attempt(refused, 400, 'rejected');

    const results = requestCancel(store, [gaveUp, known, refused], 'not needed');
    expect(results.map((r) => r.outcome)).toEqual(['refused', 'refused', 'withdrawn']);
    expect(results[0]!.reason).toMatch(/^a send of it got no answer \(or a server error\), so the service may have it/);
    expect(results[1]!.reason).toMatch(/^the service has it \(pharmacy order id 4711\), though it is rejected here/);
    expect(store.orders.get(gaveUp)?.state).toBe('held');
    expect(store.orders.get(known)?.state).toBe('rejected');
    expect(store.audit.forOrder(gaveUp).at(-1)).toMatchObject({ action: 'order.cancel-declined' });
  });

  it('queues a cancel command for a created order, keeping the reason for the service but out of the audit log', () => {
    ({ store, dataDir, batchId } = storeWithBatch());
    const id = orderIn('created');
    const [result] = requestCancel(store, [id], 'Duplicate prescription (Mrs Example)');
    expect(result).toMatchObject({ orderId: id, outcome: 'cancel-requested' });
    expect(store.orders.get(id)?.state).toBe('cancel_requested');
    expect(store.cancellations.open(id)).toMatchObject({
      state: 'requested',
      reason: 'Duplicate prescription (Mrs Example)',
    });
    const entry = store.audit.forOrder(id).at(-1)!;
    expect(entry.action).toBe('order.cancel-requested');
    expect(JSON.stringify(store.audit.forOrder(id))).not.toContain('Mrs Example');
  });

  it('refuses, with a reason, orders whose fate at the service is not known yet or is already settled', () => {
    ({ store, dataDir, batchId } = storeWithBatch());
    const sending = orderIn('sending');
    const inDoubt = orderIn('in_doubt');
    const requested = orderIn('created');
    requestCancel(store, [requested], 'first request');
    const cancelled = orderIn('cancelled');
    const withdrawn = orderIn('queued');
    requestCancel(store, [withdrawn], 'x');

    const results = requestCancel(store, [sending, inDoubt, requested, cancelled, withdrawn, 424242], 'again');
    expect(results.map((r) => r.outcome)).toEqual(Array(6).fill('refused'));
    expect(results[0]!.reason).toMatch(/being sent right now/);
    expect(results[1]!.reason).toMatch(/not known yet/);
    expect(results[2]!.reason).toMatch(/already waiting/);
    expect(results[3]!.reason).toMatch(/already cancelled/);
    expect(results[4]!.reason).toMatch(/already withdrawn/);
    expect(results[5]).toEqual({
      orderId: 424242,
      clinicOrderId: null,
      outcome: 'refused',
      reason: 'there is no order 424242',
    });
    expect(store.orders.get(sending)?.state).toBe('sending');
    expect(store.orders.get(inDoubt)?.state).toBe('in_doubt');
    expect(store.audit.forOrder(inDoubt).at(-1)).toMatchObject({
      action: 'order.cancel-declined',
      details: { fromState: 'in_doubt' },
    });
    expect(verifyAuditChain(store)).toMatchObject({ ok: true });
  });

  it('refuses locally an order the service already shows as dispatched, naming the status', () => {
    ({ store, dataDir, batchId } = storeWithBatch());
    const id = orderIn('created');
    applyStatusRecord(
      store,
      id,
      {
        clinicOrderId: null,
        pharmacyOrderId: null,
        orderStatus: 'Prescription Dispatched',
        dispatchDate: '2025-03-03',
        trackingId: 'RM123456789GB',
        cancelReason: null,
      },
      new Date(),
    );
    const [result] = requestCancel(store, [id], 'too late');
    expect(result).toMatchObject({ outcome: 'refused' });
    expect(result!.reason).toContain('"Prescription Dispatched"');
    expect(store.orders.get(id)?.state).toBe('created');
    expect(store.cancellations.list(id)).toEqual([]);
    expect(store.audit.forOrder(id).at(-1)).toMatchObject({
      action: 'order.cancel-declined',
      details: { remoteStatus: 'Prescription Dispatched' },
    });
  });

  it('allows a new request after an earlier cancel was refused, if the order is still not dispatched', () => {
    ({ store, dataDir, batchId } = storeWithBatch());
    const id = orderIn('cancel_refused');
    expect(requestCancel(store, [id], 'try again')[0]).toMatchObject({ outcome: 'cancel-requested' });
    expect(store.orders.get(id)?.state).toBe('cancel_requested');
  });

  it('refuses a blank or over-long reason before touching anything', () => {
    ({ store, dataDir, batchId } = storeWithBatch());
    const id = orderIn('created');
    expect(() => requestCancel(store, [id], '   ')).toThrow(/1 to 500 characters/);
    expect(() => requestCancel(store, [id], 'x'.repeat(501))).toThrow(/1 to 500 characters/);
    expect(store.orders.get(id)?.state).toBe('created');
  });
});
