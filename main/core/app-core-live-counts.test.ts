import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { EventPayload } from '../../shared/contract.js';
import { LOCAL_SANDBOX_ID } from './environments/presets.js';
import { enqueueOrders } from './store/store.js';
import { sampleOrder } from './store/testing/store-fixtures.js';
import { openTestCore, type TestCore } from './testing/test-core.js';

// Issue #13: the counts on screen come from `outbox.progress` events. The outbox reports them as it sends; a
// change made elsewhere (the status poller confirming a cancel) must report them too, or Submissions keeps saying
// "Cancel sent 1 / Cancelled 0" while Orders says Cancelled.
describe('counts follow the store when orders change outside the outbox', () => {
  let t: TestCore;
  const progress: Array<EventPayload<'outbox.progress'>> = [];

  beforeAll(async () => {
    t = await openTestCore('live-counts', {
      startLocalSandbox: true,
      startOutbox: true,
      outboxTuning: { baseDelayMs: 20, maxDelayMs: 200, breakerCooldownMs: 50, reconcileDelayMs: 20 },
      pollerTuning: { minIntervalMs: 50, maxIntervalMs: 200, ratePerSecond: 100, dispatchRefreshMs: 500 },
    });
    t.core.events.subscribe('outbox.progress', (p) => {
      if (p.environmentId === LOCAL_SANDBOX_ID) progress.push(p);
    });
  });
  afterAll(async () => {
    await t.close();
  });

  /** A batch of `count` orders accepted into the outbox, as an accepted import leaves them. */
  function queueBatch(fileName: string, count: number): number {
    const { store, outbox } = t.core.services;
    const batch = store.batches.create({
      environmentId: LOCAL_SANDBOX_ID,
      sourceFileName: fileName,
      kind: 'json',
      rowCount: count,
      invalidCount: 0,
    });
    enqueueOrders(
      store,
      batch.id,
      Array.from({ length: count }, () => sampleOrder({ state: 'queued' })),
    );
    outbox.notify(LOCAL_SANDBOX_ID);
    return batch.id;
  }

  const stateOf = async (id: number) => (await t.api.call('orders.get', { orderId: id })).order.state;

  it('a cancel confirmed by status polling is counted as cancelled at once, not left as sent', async () => {
    const { store, outbox } = t.core.services;
    const batch = store.batches.create({
      environmentId: LOCAL_SANDBOX_ID,
      sourceFileName: 'orders.json',
      kind: 'json',
      rowCount: 1,
      invalidCount: 0,
    });
    const [id] = enqueueOrders(store, batch.id, [sampleOrder({ state: 'queued' })]);
    outbox.notify(LOCAL_SANDBOX_ID);
    await vi.waitFor(async () => expect(await stateOf(id!)).toBe('created'), { timeout: 15_000, interval: 50 });

    await t.api.call('orders.cancel', { orderIds: [id!], reason: 'Clinic asked' });
    // cancel_sent is the outbox's doing; cancelled is the poller's (it reads the service's "Cancelled").
    await vi.waitFor(async () => expect(await stateOf(id!)).toBe('cancelled'), { timeout: 15_000, interval: 20 });

    await vi.waitFor(
      () => {
        const last = progress.at(-1)!;
        expect(last.counts).toMatchObject({ cancel_sent: 0, cancel_requested: 0, cancelled: 1 });
      },
      { timeout: 1_000, interval: 10 },
    );
    // The numbers in that event are the store's own.
    expect(progress.at(-1)!.counts).toEqual(store.orders.countByState(LOCAL_SANDBOX_ID));
  });

  it('progress per batch: each batch sent from has its own counts and rate, newest first', async () => {
    const first = queueBatch('monday.csv', 4);
    const second = queueBatch('tuesday.csv', 3);
    await vi.waitFor(
      () => {
        const batches = progress.at(-1)!.batches ?? [];
        // The first test's batch comes after them: three batches are shown.
        expect(batches.map((b) => b.batchId).slice(0, 2)).toEqual([second, first]);
        expect(batches[0]?.fileName).toBe('tuesday.csv');
        expect(batches[0]?.counts.created).toBe(3);
        expect(batches[1]?.fileName).toBe('monday.csv');
        expect(batches[1]?.counts.created).toBe(4);
      },
      { timeout: 15_000, interval: 50 },
    );
    const [tuesday, monday] = progress.at(-1)!.batches!;
    // Only the batch's own orders: 4 and 3, never the environment's whole history.
    expect(Object.values(monday!.counts).reduce((a, b) => a + b, 0)).toBe(4);
    expect(Object.values(tuesday!.counts).reduce((a, b) => a + b, 0)).toBe(3);
    // Each order that reached the service counted in its own batch's rate while it went out.
    expect(progress.some((p) => (p.batches ?? []).some((b) => b.batchId === first && b.ordersPerSecond > 0))).toBe(
      true,
    );
  });
});
