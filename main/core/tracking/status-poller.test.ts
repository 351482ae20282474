import { afterEach, describe, expect, it, vi } from 'vitest';
import { KNOWN_ORDER_STATUSES } from '../../../shared/status.js';
import { verifyAuditChain } from '../audit/verify-chain.js';
import type { OrderServiceClient } from '../service/client.js';
import { createOrderServiceClient } from '../service/client.js';
import { applyStatusRecord } from './apply-status.js';
import { StatusPoller, type PollerTuning } from './status-poller.js';
import { createdOrders, startTrackingWorld, type TrackingWorld } from './testing/tracking-fixtures.js';

const FAST: Partial<PollerTuning> = {
  minIntervalMs: 40,
  maxIntervalMs: 320,
  concurrency: 4,
  ratePerSecond: 200,
  dispatchRefreshMs: 200,
};

let world: TrackingWorld | undefined;
let poller: StatusPoller | undefined;
afterEach(async () => {
  await poller?.close();
  await world?.close();
  poller = undefined;
  world = undefined;
});

/** A client that records the date ranges asked for, delegating every call to the real one. */
function recordingClient(inner: OrderServiceClient, ranges: Array<{ startDate: string; endDate: string }>) {
  return {
    ...inner,
    statusByDateRange: (q: { startDate: string; endDate: string }) => {
      ranges.push(q);
      return inner.statusByDateRange(q);
    },
  } satisfies OrderServiceClient;
}

describe('StatusPoller against the sandbox', () => {
  it('follows orders through their statuses into history, to dispatch with a tracking id, and stops there', async () => {
    // 250 ms a step: the four steps to "processed" leave the first look a second of margin on a loaded machine
    // (it must see at least two statuses).
    world = await startTrackingWorld({ statusStepMs: 250 });
    const w = world;
    const ids = await createdOrders(w, 3);
    const changed: number[] = [];
    poller = new StatusPoller(
      { store: w.store, clientFor: () => w.client, onOrdersChanged: (_env, orderIds) => changed.push(...orderIds) },
      FAST,
    );
    poller.start(w.environmentId);

    await vi.waitFor(
      () => {
        for (const id of ids) expect(w.store.orders.get(id)?.remoteStatus).toBe('Prescription Processed');
      },
      { timeout: 15_000, interval: 50 },
    );

    const atService = new Map(w.sandbox.listOrders().map((o) => [o.pharmacyOrderId, o]));
    for (const id of ids) {
      const order = w.store.orders.get(id)!;
      const remote = atService.get(order.pharmacyOrderId!)!;
      expect(order.state).toBe('created');
      expect(order.trackingId).toBe(remote.trackingId);
      expect(order.trackingId).toMatch(/^RM\d{9}GB$/);
      expect(order.dispatchDate).toBe(remote.dispatchDate);

      const history = w.store.statusHistory.list(id);
      const statuses = history.map((h) => h.status);
      // Every row is a real change, in the service's order (polling may skip a short-lived status).
      const positions = statuses.map((s) => KNOWN_ORDER_STATUSES.indexOf(s as never));
      expect(positions.every((p, i) => p >= 0 && (i === 0 || p > positions[i - 1]!))).toBe(true);
      expect(statuses.at(-1)).toBe('Prescription Processed');
      expect(statuses.length).toBeGreaterThanOrEqual(2);
      const dispatchedRow = history.find((h) => h.trackingId !== null)!;
      expect(dispatchedRow.trackingId).toBe(remote.trackingId);
      // Each history row has its audit entry.
      const audited = w.store.audit.forOrder(id).filter((e) => e.action === 'order.status-changed');
      expect(audited.map((e) => e.details.remoteStatus)).toEqual(statuses);
    }
    expect(new Set(changed)).toEqual(new Set(ids));
    expect(verifyAuditChain(w.store)).toMatchObject({ ok: true });

    // Processed orders are settled: another refresh looks none of them up one by one.
    const round = await poller.refresh(w.environmentId);
    expect(round.checked).toBe(0);
  });

  it('slows down for orders that do not move', async () => {
    world = await startTrackingWorld({ statusStepMs: 60_000 });
    const w = world;
    const [id] = await createdOrders(w, 1);
    poller = new StatusPoller({ store: w.store, clientFor: () => w.client }, { ...FAST, dispatchRefreshMs: 60_000 });
    poller.start(w.environmentId);
    await vi.waitFor(() => expect(poller!.intervalOf(w.environmentId, id!)).toBe(FAST.maxIntervalMs), {
      timeout: 10_000,
      interval: 20,
    });
    // The first look found the first status (a change): every look since found nothing new.
    expect(w.store.statusHistory.list(id!)).toHaveLength(1);
  });

  it('ends a status lookup in flight when stopped, instead of waiting for the service to answer', async () => {
    world = await startTrackingWorld({ statusStepMs: 60_000 });
    const w = world;
    const [id] = await createdOrders(w, 1);
    const before = w.store.statusHistory.list(id!).length;
    // The service now takes a minute to answer: stopping must not wait for it.
    w.sandbox.setFaults({ latencyMs: 60_000 });
    const lookups: Array<Promise<unknown>> = [];
    const client = {
      ...w.client,
      statusWithClinicCode: ((...args: Parameters<OrderServiceClient['statusWithClinicCode']>) => {
        const call = (w.client.statusWithClinicCode as (...a: unknown[]) => Promise<unknown>)(...args);
        lookups.push(call);
        return call;
      }) as OrderServiceClient['statusWithClinicCode'],
    } satisfies OrderServiceClient;
    poller = new StatusPoller({ store: w.store, clientFor: () => client }, { ...FAST, dispatchRefreshMs: 60_000 });
    poller.start(w.environmentId);
    await vi.waitFor(() => expect(lookups).toHaveLength(1), { timeout: 10_000, interval: 10 });
    await poller.stop(w.environmentId);
    await expect(lookups[0]).resolves.toMatchObject({ ok: false, error: { kind: 'cancelled' } });
    // Nothing learnt, nothing recorded; started again, it looks again.
    expect(w.store.statusHistory.list(id!)).toHaveLength(before);
    w.sandbox.setFaults({ latencyMs: 0 });
    poller.start(w.environmentId);
    await vi.waitFor(() => expect(lookups.length).toBeGreaterThan(1), { timeout: 10_000, interval: 10 });
  });

  it('refreshes dispatch information in bulk with ≤ 3-day date-range calls covering every day since the oldest open order', async () => {
    let storeNow = new Date(Date.now() - 9 * 86_400_000);
    world = await startTrackingWorld({ statusStepMs: 60_000 }, () => storeNow);
    const w = world;
    const ids = await createdOrders(w, 2); // created at the store's clock: nine days ago
    storeNow = new Date();
    const ranges: Array<{ startDate: string; endDate: string }> = [];
    const client = recordingClient(w.client, ranges);
    poller = new StatusPoller({ store: w.store, clientFor: () => client }, { ...FAST, lookbackDays: 30 });

    const round = await poller.refresh(w.environmentId);
    expect(round.checked).toBe(2);
    const today = new Date().toISOString().slice(0, 10);
    const nineDaysAgo = new Date(Date.now() - 9 * 86_400_000).toISOString().slice(0, 10);
    expect(ranges[0]!.startDate).toBe(nineDaysAgo);
    expect(ranges.at(-1)!.endDate).toBe(today);
    expect(ranges).toHaveLength(3); // 10 days: 4 + 4 + 2
    for (const range of ranges) {
      expect((Date.parse(range.endDate) - Date.parse(range.startDate)) / 86_400_000).toBeLessThanOrEqual(3);
    }
    expect(round.dateRangeCalls).toBe(3);
    expect(ids).toHaveLength(2);
  });

  it('picks up "processed" for dispatched orders from the date-range endpoint, without single lookups', async () => {
    world = await startTrackingWorld({ statusStepMs: 80 });
    const w = world;
    const [id] = await createdOrders(w, 1);
    await vi.waitFor(() => expect(w.sandbox.listOrders()[0]?.status).toBe('Prescription Processed'), {
      timeout: 5_000,
    });
    // Locally the order is where a last single lookup left it: dispatched, with its tracking id.
    const remote = w.sandbox.listOrders()[0]!;
    applyStatusRecord(
      w.store,
      id!,
      {
        clinicOrderId: remote.clinicOrderId,
        pharmacyOrderId: String(remote.pharmacyOrderId),
        orderStatus: 'Prescription Dispatched',
        dispatchDate: remote.dispatchDate,
        trackingId: remote.trackingId,
        cancelReason: null,
      },
      new Date(),
    );
    const single = vi.fn();
    const client = { ...w.client, statusWithClinicCode: single } as unknown as OrderServiceClient;
    poller = new StatusPoller({ store: w.store, clientFor: () => client }, FAST);
    const round = await poller.refresh(w.environmentId);
    expect(single).not.toHaveBeenCalled();
    expect(round.changed).toEqual([id]);
    expect(w.store.orders.get(id!)).toMatchObject({
      remoteStatus: 'Prescription Processed',
      trackingId: remote.trackingId,
      dispatchDate: remote.dispatchDate,
    });
  });

  it('stops on a refused sign-in, says so once, and resumes when started again', async () => {
    world = await startTrackingWorld({ statusStepMs: 60_000 });
    const w = world;
    const [id] = await createdOrders(w, 1);
    const signedOut = createOrderServiceClient({
      apiBaseUrl: w.sandbox.apiUrl,
      tokens: null,
      timeoutMs: 5_000,
      userAgent: 'RxBatch/test',
      createWithClinicVersion: 'v1',
    });
    let client = signedOut;
    const signInRequired = vi.fn();
    poller = new StatusPoller({ store: w.store, clientFor: () => client, onSignInRequired: signInRequired }, FAST);
    poller.start(w.environmentId);
    await vi.waitFor(() => expect(signInRequired).toHaveBeenCalledWith(w.environmentId), { timeout: 5_000 });
    const requests = w.sandbox.requestCount();
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(w.sandbox.requestCount()).toBe(requests); // no polling while signed out
    expect(signInRequired).toHaveBeenCalledTimes(1);
    expect(poller.isSignInRequired(w.environmentId)).toBe(true);

    client = w.client;
    poller.start(w.environmentId);
    await vi.waitFor(() => expect(w.store.orders.get(id!)?.remoteStatus).toBe('Waiting Payment Success'), {
      timeout: 5_000,
    });
  });

  it('during an outage makes one request per round, not one per order', async () => {
    world = await startTrackingWorld({ statusStepMs: 60_000 });
    const w = world;
    await createdOrders(w, 5);
    w.sandbox.setFaults({ outage: true });
    poller = new StatusPoller({ store: w.store, clientFor: () => w.client }, FAST);
    const before = w.sandbox.requestCount();
    const round = await poller.refresh(w.environmentId);
    expect(round.stoppedBy).toBe('service-unavailable');
    expect(w.sandbox.requestCount() - before).toBeLessThanOrEqual(FAST.concurrency!);
    w.sandbox.setFaults({ outage: false });
    const after = await poller.refresh(w.environmentId);
    expect(after.stoppedBy).toBeUndefined();
    expect(after.changed).toHaveLength(5);
  });
});
