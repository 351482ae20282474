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
});
