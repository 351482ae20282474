import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RxBatchApi } from '../../shared/contract.js';
import type { Core } from './app-core.js';
import { LOCAL_SANDBOX_ID } from './environments/presets.js';
import { enqueueOrders } from './store/store.js';
import { sampleOrder } from './store/testing/store-fixtures.js';
import { openTestCore, type TestCore } from './testing/test-core.js';
import { NOT_FOUND_FOR_MS, noteNotFound } from './tracking/lost-at-service.js';

/**
 * The Submissions screen's "Orders that need attention" through the contract (`orders.list` with `needsAttention`):
 * a created order flagged as not found at the service is listed beside the held one, with its flag, its state as
 * it is.
 */

let t: TestCore;
let core: Core;
let api: RxBatchApi;

beforeAll(async () => {
  t = await openTestCore('attention-list');
  ({ core, api } = t);
});

afterAll(async () => {
  await t?.close();
});

it('lists a created order flagged as not found at the service among the orders that need attention', async () => {
  const { store } = core.services;
  const batch = store.batches.create({
    environmentId: LOCAL_SANDBOX_ID,
    sourceFileName: 'orders.json',
    kind: 'json',
    rowCount: 3,
    invalidCount: 0,
  });
  const [held, lost, fine] = enqueueOrders(store, batch.id, [sampleOrder(), sampleOrder(), sampleOrder()]);
  store.orders.transition(held!, ['queued'], 'held', {}, { actor: 'submitter', action: 'order.held' });
  for (const [id, pharmacyOrderId] of [
    [lost!, 8001],
    [fine!, 8002],
  ] as const) {
    store.orders.transition(id, ['queued'], 'created', { pharmacyOrderId }, { actor: 'submitter', action: 'x.y' });
  }
  const now = Date.now();
  for (const ago of [NOT_FOUND_FOR_MS + 60_000, NOT_FOUND_FOR_MS / 2, 0]) {
    noteNotFound(store, store.orders.get(lost!)!, new Date(now - ago));
  }

  const page = await api.call('orders.list', { environmentId: LOCAL_SANDBOX_ID, needsAttention: true });
  expect(page.orders.map((order) => [order.id, order.state, order.notFoundAtService !== undefined])).toEqual([
    [lost, 'created', true],
    [held, 'held', false],
  ]);
  expect(page.orders[0]!.notFoundAtService).toMatchObject({ lookups: 3 });
  // The progress line's "need a person" counts it too: the held one by its state, the flagged one beside.
  const progress = await api.call('outbox.progress', { environmentId: LOCAL_SANDBOX_ID });
  expect([progress.counts.held, progress.notedOutsideAttention]).toEqual([1, 1]);

  for (const input of [
    { needsAttention: true as const },
    { environmentId: LOCAL_SANDBOX_ID, needsAttention: true as const, states: ['held' as const] },
  ]) {
    await expect(api.call('orders.list', input)).rejects.toMatchObject({ code: 'invalid-input' });
  }
});
