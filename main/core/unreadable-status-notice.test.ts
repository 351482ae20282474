import { afterAll, beforeAll, expect, it } from 'vitest';
import type { EventPayload, RxBatchApi } from '../../shared/contract.js';
import type { Core } from './app-core.js';
import { startHostileIdentity, type HostileIdentity } from './auth/testing/hostile-identity.js';
import { presetEnvironments } from './environments/presets.js';
import { answerWith, startHostileServer, type HostileServer } from './service/testing/hostile-server.js';
import { enqueueOrders } from './store/store.js';
import { sampleOrder } from './store/testing/store-fixtures.js';
import { openTestCore, type TestCore } from './testing/test-core.js';

/**
 * Status lookups that a single sign-on gateway answers with its sign-in page and a 200 reach the admin as one
 * `service-unreadable` attention (the desktop app's notification) after three rounds, not as a frozen status with
 * no one told. A real core over the contract, a real identity answer, the gateway a raw loopback server.
 */

const ENV = 'sso';
const SIGN_IN_PAGE =
  '<!DOCTYPE html><html><head><title>Sign in to your account</title></head><body><form></form></body></html>';
let t: TestCore;
let core: Core;
let api: RxBatchApi;
let service: HostileServer;
let idp: HostileIdentity;
const attention: Array<EventPayload<'attention'>> = [];

beforeAll(async () => {
  [service, idp] = await Promise.all([
    startHostileServer(answerWith(200, SIGN_IN_PAGE, { 'content-type': 'text/html' })),
    startHostileIdentity(),
  ]);
  t = await openTestCore('unreadable-notice');
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

it('announces status lookups answered with a sign-in page once, after three rounds', async () => {
  const { store } = core.services;
  const batch = store.batches.create({
    environmentId: ENV,
    sourceFileName: 'orders.json',
    kind: 'json',
    rowCount: 1,
    invalidCount: 0,
  });
  const [id] = enqueueOrders(store, batch.id, [sampleOrder({ clinicOrderId: 'SSO-PAGE' })]);
  store.orders.transition(
    id!,
    ['queued'],
    'created',
    { pharmacyOrderId: 8001 },
    { actor: 'submitter', action: 'order.created' },
  );

  for (let round = 0; round < 4; round += 1) {
    expect(await api.call('orders.refresh', { environmentId: ENV })).toMatchObject({
      stoppedBy: 'service-unavailable',
    });
  }
  expect(attention.map((event) => [event.environmentId, event.kind, event.orderIds])).toEqual([
    [ENV, 'service-unreadable', []],
  ]);
  expect(attention[0]!.message).toMatch(
    /^The Order Service's answers to 3 status lookups in a row could not be read \(the last: .*Sign in to your account/,
  );
  expect(store.orders.get(id!)).toMatchObject({ state: 'created', remoteStatus: null });
});
