import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RxBatchApi } from '../../shared/contract.js';
import type { Core } from './app-core.js';
import { answerWith } from './service/testing/hostile-server.js';
import { startRemoteCore, type RemoteCore } from './testing/remote-core.js';

/**
 * Status lookups that a single sign-on gateway answers with its sign-in page and a 200 reach the admin as one
 * `service-unreadable` attention (the desktop app's notification) after three rounds, not as a frozen status with
 * no one told. A real core over the contract, a real identity answer, the gateway a raw loopback server.
 */

const ENV = 'sso';
const SIGN_IN_PAGE =
  '<!DOCTYPE html><html><head><title>Sign in to your account</title></head><body><form></form></body></html>';
let remote: RemoteCore;
let core: Core;
let api: RxBatchApi;
let attention: RemoteCore['attention'];

beforeAll(async () => {
  remote = await startRemoteCore(
    'unreadable-notice',
    ENV,
    answerWith(200, SIGN_IN_PAGE, { 'content-type': 'text/html' }),
  );
  ({ core, api, attention } = remote);
});

afterAll(async () => {
  await remote?.close();
});

it('announces status lookups answered with a sign-in page once, after three rounds', async () => {
  const { store } = core.services;
  const id = remote.createdOrder('SSO-PAGE', 8001);

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
  expect(store.orders.get(id)).toMatchObject({ state: 'created', remoteStatus: null });
});
