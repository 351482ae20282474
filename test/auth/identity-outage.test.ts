import { afterAll, beforeAll, expect, it } from 'vitest';
import { AuthSession } from '../../main/core/auth/auth-session.js';
import {
  startHostileIdentity,
  tokenAnswer,
  type HostileIdentity,
} from '../../main/core/auth/testing/hostile-identity.js';
import { Outbox } from '../../main/core/outbox/outbox.js';
import { MemorySecretStore } from '../../main/core/platform/secret-store.js';
import { createOrderServiceClient } from '../../main/core/service/client.js';
import { rawAnswer, startHostileServer, type HostileServer } from '../../main/core/service/testing/hostile-server.js';
import { enqueueOrders } from '../../main/core/store/store.js';
import { LOCAL, removeDir, sampleOrder, storeWithBatch } from '../../main/core/store/testing/store-fixtures.js';

/**
 * The token expires while the identity server is away (503): the real AuthSession behind the real client and
 * outbox, against a scripted identity server and a loopback service that wants a token. Still signed in, so not a
 * sign-in matter: sending waits as for an outage and goes on by itself once the identity server answers again.
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

it('an identity server down at token expiry stops sending as unavailable, not sign-in required, and it resumes alone', async () => {
  let clockOffsetMs = 0;
  const session = new AuthSession(
    {
      environmentId: LOCAL.id,
      issuer: idp.issuer,
      apiBaseUrl: api.url,
      clientId: 'service-client',
      grant: 'client_credentials',
      scopes: ['cloudrx_orderservice'],
    },
    { secrets: new MemorySecretStore(), now: () => Date.now() + clockOffsetMs },
  );
  await session.signInWithClientCredentials('secret');

  let nextId = 500;
  api.answer((socket, request) =>
    socket.end(
      request.headers.authorization
        ? rawAnswer(201, JSON.stringify({ orderId: (nextId += 1) }), { 'content-type': 'application/json' })
        : rawAnswer(401, '', { 'www-authenticate': 'Bearer' }),
    ),
  );
  const client = createOrderServiceClient({
    apiBaseUrl: api.url,
    tokens: session,
    timeoutMs: 5_000,
    userAgent: 'RxBatch/test',
    createWithClinicVersion: 'v1',
  });

  const { store, dataDir, batchId } = storeWithBatch();
  const attention: string[] = [];
  const outbox = new Outbox(
    { store, clientFor: () => client, onAttention: (event) => attention.push(event.kind) },
    { baseDelayMs: 10, maxDelayMs: 100, breakerThreshold: 2, breakerCooldownMs: 50, reconcileDelayMs: 10 },
  );
  try {
    // The token has expired and the identity server fails every request.
    clockOffsetMs = 600_000;
    idp.onToken(() => ({ status: 503, body: { error: 'temporarily_unavailable' } }));
    const ids = enqueueOrders(store, batchId, [sampleOrder(), sampleOrder()]);
    const blocked = await outbox.runUntilIdle(LOCAL.id, { stopWhenBlocked: true });
    expect(blocked).toMatchObject({ outcome: 'blocked', state: 'service-unavailable' });
    expect(attention).not.toContain('sign-in-required');
    expect(session.status().signedIn).toBe(true);
    // Waiting to be sent again (a probe may have one claimed already), none given up on or refused.
    for (const id of ids) {
      expect(['queued', 'sending']).toContain(store.orders.get(id)?.state);
      const creates = store.attempts.list(id).filter((attempt) => attempt.operation === 'create');
      expect(creates[0]).toMatchObject({
        outcome: 'retryable',
        errorMessage: expect.stringMatching(/identity server did not answer/) as unknown,
      });
    }

    // Back: no sign-in, no resume; the next probe gets a token and the orders go.
    idp.onToken(() => tokenAnswer());
    const done = await outbox.runUntilIdle(LOCAL.id);
    expect(done.outcome).toBe('idle');
    expect(ids.map((id) => store.orders.get(id)?.state)).toEqual(['created', 'created']);
    expect(attention).not.toContain('sign-in-required');
  } finally {
    await outbox.stop();
    store.close();
    removeDir(dataDir);
  }
});
