import { afterEach, describe, expect, it, vi } from 'vitest';
import { verifyAuditChain } from '../audit/verify-chain.js';
import { Outbox } from '../outbox/outbox.js';
import { requestCancel } from './cancel-request.js';
import { StatusPoller } from './status-poller.js';
import { createdOrders, startTrackingWorld, type TrackingWorld } from './testing/tracking-fixtures.js';

let world: TrackingWorld | undefined;
let outbox: Outbox | undefined;
let poller: StatusPoller | undefined;
afterEach(async () => {
  await poller?.close();
  await outbox?.stop();
  await world?.close();
  world = outbox = poller = undefined;
});

const FAST_OUTBOX = { baseDelayMs: 10, maxDelayMs: 100, breakerCooldownMs: 50, reconcileDelayMs: 10 };

// Cancel requests made offline, sent by the real submitter, confirmed (or refused) by the service.
describe('cancellation end to end', () => {
  it('created → cancel_requested (offline) → cancel_sent by the outbox → cancelled once the status says so', async () => {
    world = await startTrackingWorld({ statusStepMs: 60_000 });
    const w = world;
    const [id] = await createdOrders(w, 1);
    // Offline: the request only writes locally.
    w.sandbox.setFaults({ outage: true });
    const before = w.sandbox.requestCount();
    expect(requestCancel(w.store, [id!], 'Prescriber withdrew it')[0]).toMatchObject({ outcome: 'cancel-requested' });
    expect(w.sandbox.requestCount()).toBe(before);
    w.sandbox.setFaults({ outage: false });

    outbox = new Outbox({ store: w.store, clientFor: () => w.client }, FAST_OUTBOX);
    const run = await outbox.runUntilIdle(w.environmentId);
    expect(run.outcome).toBe('idle');
    expect(w.store.orders.get(id!)?.state).toBe('cancel_sent');
    expect(w.sandbox.listOrders()[0]).toMatchObject({ status: 'Cancelled', cancelReason: 'Prescriber withdrew it' });

    poller = new StatusPoller({ store: w.store, clientFor: () => w.client }, { minIntervalMs: 30, ratePerSecond: 100 });
    await poller.refresh(w.environmentId);
    expect(w.store.orders.get(id!)).toMatchObject({ state: 'cancelled', remoteStatus: 'Cancelled' });
    expect(w.store.cancellations.list(id!)).toEqual([
      expect.objectContaining({
        state: 'cancelled',
        reason: 'Prescriber withdrew it',
        sentAt: expect.any(String) as unknown,
      }),
    ]);
    expect(w.store.audit.forOrder(id!).map((e) => e.action)).toEqual(
      expect.arrayContaining(['order.cancel-requested', 'order.cancel-sent', 'order.cancel-confirmed']),
    );
    expect(verifyAuditChain(w.store)).toMatchObject({ ok: true });
  });

  it('an order dispatched before the cancel reached the service ends cancel_refused with the service’s reason', async () => {
    world = await startTrackingWorld({ statusStepMs: 60 });
    const w = world;
    const [id] = await createdOrders(w, 1);
    // Locally nothing is known about the dispatch yet, so the request is accepted and queued.
    expect(requestCancel(w.store, [id!], 'Too late?')[0]).toMatchObject({ outcome: 'cancel-requested' });
    await vi.waitFor(() => expect(w.sandbox.listOrders()[0]?.status).toMatch(/Dispatched|Processed/), {
      timeout: 5_000,
    });

    const attention: string[] = [];
    outbox = new Outbox(
      { store: w.store, clientFor: () => w.client, onAttention: (e) => attention.push(e.kind) },
      FAST_OUTBOX,
    );
    await outbox.runUntilIdle(w.environmentId);
    const order = w.store.orders.get(id!)!;
    expect(order.state).toBe('cancel_refused');
    expect(order.lastError?.message).toMatch(/only orders not yet dispatched can be cancelled/);
    expect(w.store.cancellations.list(id!)[0]).toMatchObject({
      state: 'refused',
      resultMessage: expect.stringMatching(/not yet dispatched/) as unknown,
    });
    expect(attention).toEqual(['order']);

    // Tracking carries on: the order's dispatch shows up, and a new request is refused locally with the status.
    poller = new StatusPoller({ store: w.store, clientFor: () => w.client }, { minIntervalMs: 30, ratePerSecond: 100 });
    await poller.refresh(w.environmentId);
    expect(w.store.orders.get(id!)?.trackingId).toMatch(/^RM\d{9}GB$/);
    const again = requestCancel(w.store, [id!], 'again')[0]!;
    expect(again.outcome).toBe('refused');
    expect(again.reason).toMatch(/"Prescription (Dispatched|Processed)"/);
  });
});
