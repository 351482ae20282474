import type { Browser } from '@playwright/test';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ORDER_SERVICE_SCOPES } from '../../shared/environment.js';
import { AuthSession } from '../../main/core/auth/auth-session.js';
import { MemorySecretStore } from '../../main/core/platform/secret-store.js';
import type { AttentionEvent } from '../../main/core/outbox/attention.js';
import { Outbox } from '../../main/core/outbox/outbox.js';
import { completeDevicePages } from '../../sandbox/identity/device-pages-driver.js';
import { startSandbox, type RunningSandbox } from '../../sandbox/index.js';
import { launchChromium } from '../support/browser.js';
import { clientCredentialsTokenSource } from '../support/client-credentials.js';
import {
  ENVIRONMENT_ID,
  enqueue,
  expectEachCreatedOnce,
  sampleOrders,
  sandboxClient,
  storeForSandbox,
  type OutboxTestStore,
} from './support/outbox-fixture.js';

/**
 * Sign-in mid-batch: access tokens that expire every second (refreshed, nothing lost), and a refresh token
 * revoked at the identity server (the environment stops as "sign-in required", nothing is dropped or rejected,
 * and after signing in again and resuming, every order is created once).
 */

let sandbox: RunningSandbox;
let browser: Browser;
const opened: OutboxTestStore[] = [];

beforeAll(async () => {
  [sandbox, browser] = await Promise.all([
    startSandbox({ statusStepMs: 3_600_000, accessTokenTtlSeconds: 1 }),
    launchChromium(),
  ]);
});

afterAll(async () => {
  for (const t of opened) t.close();
  await Promise.all([sandbox?.close(), browser?.close()]);
});

async function signInWithDevice(session: AuthSession): Promise<void> {
  const login = await session.startDeviceLogin();
  const context = await browser.newContext();
  try {
    await completeDevicePages(await context.newPage(), {
      url: login.verificationUriComplete ?? login.verificationUri,
      username: sandbox.user.username,
      password: sandbox.user.password,
      decision: 'allow',
    });
  } finally {
    await context.close();
  }
  expect(await login.result).toEqual({ outcome: 'signed-in' });
}

describe('sign-in during a batch', () => {
  it('access tokens expiring mid-batch are refreshed: nothing lost, nothing rejected', async () => {
    const t = storeForSandbox(sandbox);
    opened.push(t);
    const tokens = clientCredentialsTokenSource({ issuer: sandbox.issuer, ...sandbox.serviceClient });
    const attention: AttentionEvent[] = [];
    const outbox = new Outbox(
      {
        store: t.store,
        clientFor: () => sandboxClient(sandbox, { tokens }),
        onAttention: (e) => attention.push(e),
      },
      { concurrency: 2, ratePerSecond: 30, baseDelayMs: 10, maxDelayMs: 100 },
    );
    const orders = sampleOrders('EXPIRY', 75);
    enqueue(t, orders);

    const result = await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();

    expect(result.outcome).toBe('idle');
    expectEachCreatedOnce(
      sandbox,
      t.store,
      orders.map((o) => o.clinicOrderId),
    );
    // About 2.5 s of sending with 1 s tokens: several refreshes, each after a 401 the client cured itself.
    expect(tokens.fetches()).toBeGreaterThanOrEqual(3);
    expect(attention).toEqual([]);
  });

  it('a revoked refresh token stops the environment for sign-in; after sign-in and resume all are created once', async () => {
    const t = storeForSandbox(sandbox);
    opened.push(t);
    const session = new AuthSession(
      {
        environmentId: ENVIRONMENT_ID,
        issuer: sandbox.issuer,
        apiBaseUrl: sandbox.apiUrl,
        clientId: sandbox.deviceClient.clientId,
        grant: 'device',
        scopes: [...ORDER_SERVICE_SCOPES],
      },
      { secrets: new MemorySecretStore() },
    );
    await signInWithDevice(session);
    const attention: AttentionEvent[] = [];
    const outbox = new Outbox(
      {
        store: t.store,
        clientFor: () => sandboxClient(sandbox, { tokens: session }),
        onAttention: (e) => attention.push(e),
      },
      { concurrency: 2, ratePerSecond: 20, baseDelayMs: 10, maxDelayMs: 100 },
    );
    const orders = sampleOrders('REVOKED', 100);
    enqueue(t, orders);

    const firstRun = outbox.runUntilIdle(ENVIRONMENT_ID, { stopWhenBlocked: true });
    await vi.waitFor(() => expect(t.store.orders.countByState(ENVIRONMENT_ID).created).toBeGreaterThanOrEqual(10), {
      timeout: 10_000,
      interval: 20,
    });
    await sandbox.identity.revokeAllRefreshTokens();
    const blocked = await firstRun;

    expect(blocked).toMatchObject({ outcome: 'blocked', state: 'sign-in-required' });
    expect(attention).toEqual([expect.objectContaining({ kind: 'sign-in-required', environmentId: ENVIRONMENT_ID })]);
    expect(session.status().signedIn).toBe(false);
    const counts = t.store.orders.countByState(ENVIRONMENT_ID);
    expect(counts.created).toBeLessThan(100);
    expect(counts.rejected + counts.held).toBe(0);
    // In flight when the sign-in failed, then back in the queue: nothing dropped.
    await vi.waitFor(() => expect(outbox.progress(ENVIRONMENT_ID).inFlight).toBe(0), { timeout: 10_000 });
    const settled = t.store.orders.countByState(ENVIRONMENT_ID);
    expect(settled.created + settled.queued).toBe(100);
    const refusedByAuth = t.store.orders
      .list({ environmentId: ENVIRONMENT_ID, states: ['queued'], limit: 100 })
      .filter((o) => o.lastError?.kind === 'auth');
    expect(refusedByAuth.length).toBeGreaterThan(0);

    // Nothing is sent while it waits for the sign-in.
    const requestsWhileStopped = sandbox.requestCount();
    await signInWithDevice(session);
    expect(sandbox.requestCount()).toBe(requestsWhileStopped);
    outbox.resume(ENVIRONMENT_ID);
    const done = await outbox.runUntilIdle(ENVIRONMENT_ID);
    await outbox.stop();

    expect(done.outcome).toBe('idle');
    expectEachCreatedOnce(
      sandbox,
      t.store,
      orders.map((o) => o.clinicOrderId),
    );
    expect(attention).toHaveLength(1);
    const actions = t.store.audit.page(0, 100_000).map((row) => row.action);
    expect(actions.filter((a) => a === 'outbox.sign-in-required')).toHaveLength(1);
  });
});
