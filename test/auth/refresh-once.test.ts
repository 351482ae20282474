import type { Socket } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sampleV1 } from '../support/sample-orders.js';
import { AuthSession } from '../../main/core/auth/auth-session.js';
import { startHostileIdentity, type HostileIdentity } from '../../main/core/auth/testing/hostile-identity.js';
import { MemorySecretStore } from '../../main/core/platform/secret-store.js';
import { createOrderServiceClient } from '../../main/core/service/client.js';
import { rawAnswer, startHostileServer, type HostileServer } from '../../main/core/service/testing/hostile-server.js';

/**
 * A 401 mid-batch, with several requests in flight: the real AuthSession (client credentials, against a scripted
 * identity server) behind the real client, against a loopback Order Service that refuses the first token. The
 * refusals come back one after the refresh has finished, as they do when a service answers at its own pace: the
 * identity server is asked once, not once per refused request.
 */

let idp: HostileIdentity;
let api: HostileServer;
beforeAll(async () => {
  idp = await startHostileIdentity();
  api = await startHostileServer();
});
afterAll(async () => {
  await api.close();
  await idp.close();
});

it('four creates refused with the same expired token cost one refresh; each is sent again with the new token', async () => {
  const session = new AuthSession(
    {
      environmentId: 'env',
      issuer: idp.issuer,
      apiBaseUrl: api.url,
      clientId: 'service-client',
      grant: 'client_credentials',
      scopes: ['cloudrx_orderservice'],
    },
    { secrets: new MemorySecretStore() },
  );
  await session.signInWithClientCredentials('secret');
  const expired = `Bearer ${(await session.getAccessToken(new URL(api.url).origin)) ?? ''}`;

  const refusal = () => rawAnswer(401, '', { 'www-authenticate': 'Bearer error="invalid_token"' });
  let refused = 0;
  let released = false;
  const held: Socket[] = [];
  let nextId = 100;
  api.answer((socket, request) => {
    if (request.headers.authorization === expired) {
      // The first refusal at once; the others only once a request with the new token shows the refresh is done.
      if (refused === 0 || released) socket.end(refusal());
      else held.push(socket);
      refused += 1;
      return;
    }
    if (!released) {
      released = true;
      for (const waiting of held.splice(0)) waiting.end(refusal());
    }
    socket.end(rawAnswer(201, JSON.stringify({ orderId: (nextId += 1) }), { 'content-type': 'application/json' }));
  });

  const client = createOrderServiceClient({
    apiBaseUrl: api.url,
    tokens: session,
    timeoutMs: 10_000,
    userAgent: 'RxBatch/test',
    createWithClinicVersion: 'v1',
  });
  const outcomes = await Promise.all([1, 2, 3, 4].map(() => client.createWithClinic(sampleV1())));

  expect(outcomes.map((outcome) => outcome.ok)).toEqual([true, true, true, true]);
  expect(outcomes.map((outcome) => outcome.meta.attempts)).toEqual([2, 2, 2, 2]);
  expect(refused).toBe(4);
  // Sign-in, then one refresh.
  expect(idp.requests.filter((request) => request.path === '/token')).toHaveLength(2);
  expect(api.requests.filter((request) => request.headers.authorization !== expired)).toHaveLength(4);
});
