import { afterAll, beforeAll, expect, it } from 'vitest';
import type { EventPayload, RxBatchApi } from '../../shared/contract.js';
import type { Core } from './app-core.js';
import { startHostileIdentity, type HostileIdentity } from './auth/testing/hostile-identity.js';
import { presetEnvironments } from './environments/presets.js';
import { answerWith, startHostileServer, type HostileServer } from './service/testing/hostile-server.js';
import { enqueueOrders } from './store/store.js';
import { sampleOrder } from './store/testing/store-fixtures.js';
import { openTestCore, type TestCore } from './testing/test-core.js';
import { NOT_FOUND_FOR_MS, noteNotFound } from './tracking/lost-at-service.js';

/**
 * The "not found at the service" flag is announced (the `attention` event the desktop app turns into a notification)
 * the same way whichever lookup raises it: the detail view's "check statuses now" or the status poller's round.
 * A real core over the contract, a service that lists nothing for every lookup, a real identity answer.
 */

const ENV = 'svc';
let t: TestCore;
let core: Core;
let api: RxBatchApi;
let service: HostileServer;
let idp: HostileIdentity;
const attention: Array<EventPayload<'attention'>> = [];

beforeAll(async () => {
  [service, idp] = await Promise.all([startHostileServer(answerWith(200, '[]')), startHostileIdentity()]);
  t = await openTestCore('lost-notice');
  ({ core, api } = t);
  core.events.subscribe('attention', (payload) => attention.push(payload));
  const { registry } = core.services;
  await registry.update({
    ...presetEnvironments()[1]!,
    kind: 'remote',
    id: ENV,
    name: ENV,
    apiBaseUrl: service.url,
    issuer: idp.issuer,
    clientId: 'client',
    grant: 'client_credentials',
  });
  // Signed in through the session alone: a sign-in through the service would start the poller on its own.
  await registry.session(ENV).signInWithClientCredentials('secret');
});

afterAll(async () => {
  await t?.close();
  await Promise.all([service?.close(), idp?.close()]);
});

/** A created order the service has already missed twice, over more than the hour: the next miss flags it. */
function createdOrderMissedTwice(clinicOrderId: string, pharmacyOrderId: number): number {
  const { store } = core.services;
  const batch = store.batches.create({
    environmentId: ENV,
    sourceFileName: 'orders.json',
    kind: 'json',
    rowCount: 1,
    invalidCount: 0,
  });
  const [id] = enqueueOrders(store, batch.id, [sampleOrder({ clinicOrderId })]);
  store.orders.transition(
    id!,
    ['queued'],
    'created',
    { pharmacyOrderId },
    { actor: 'submitter', action: 'order.created' },
  );
  const now = Date.now();
  for (const ago of [NOT_FOUND_FOR_MS + 60_000, NOT_FOUND_FOR_MS / 2]) {
    expect(noteNotFound(store, store.orders.get(id!)!, new Date(now - ago))).toBe(false);
  }
  return id!;
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
