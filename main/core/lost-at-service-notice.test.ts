import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RxBatchApi } from '../../shared/contract.js';
import type { Core } from './app-core.js';
import { answerWith } from './service/testing/hostile-server.js';
import { startRemoteCore, type RemoteCore } from './testing/remote-core.js';
import { NOT_FOUND_FOR_MS, noteNotFound } from './tracking/lost-at-service.js';

/**
 * The "not found at the service" flag is announced (the `attention` event the desktop app turns into a notification)
 * the same way whichever lookup raises it: the detail view's "check statuses now" or the status poller's round.
 * A real core over the contract, a service that lists nothing for every lookup, a real identity answer.
 */

const ENV = 'svc';
let remote: RemoteCore;
let core: Core;
let api: RxBatchApi;
let attention: RemoteCore['attention'];

beforeAll(async () => {
  remote = await startRemoteCore('lost-notice', ENV, answerWith(200, '[]'));
  ({ core, api, attention } = remote);
});

afterAll(async () => {
  await remote?.close();
});

/** A created order the service has already missed twice, over more than the hour: the next miss flags it. */
function createdOrderMissedTwice(clinicOrderId: string, pharmacyOrderId: number): number {
  const { store } = core.services;
  const id = remote.createdOrder(clinicOrderId, pharmacyOrderId);
  const now = Date.now();
  for (const ago of [NOT_FOUND_FOR_MS + 60_000, NOT_FOUND_FOR_MS / 2]) {
    expect(noteNotFound(store, store.orders.get(id)!, new Date(now - ago))).toBe(false);
  }
  return id;
}

it("announces a flag raised by the detail view's lookup as it announces the poller's", async () => {
  const byDetail = createdOrderMissedTwice('LOST-DETAIL', 7001);
  const byPoller = createdOrderMissedTwice('LOST-POLLER', 7002);

  await api.call('orders.refresh', { environmentId: ENV, orderId: byDetail });
  expect(core.services.store.orders.get(byDetail)!.notFound?.flaggedAt).toEqual(expect.any(String));
  await api.call('orders.refresh', { environmentId: ENV });
  expect(core.services.store.orders.get(byPoller)!.notFound?.flaggedAt).toEqual(expect.any(String));

  // One each, in the same words; the order flagged first is not announced again by the poller's round.
  expect(attention.map((event) => [event.kind, event.orderIds])).toEqual([
    ['order-not-found', [byDetail]],
    ['order-not-found', [byPoller]],
  ]);
  for (const event of attention) {
    expect(event.message).toMatch(/^Order \S+ \(\S+\): the service has not found order \S+ \(pharmacy id 700[12]\)/);
  }
});
