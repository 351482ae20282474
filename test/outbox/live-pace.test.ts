import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openServices } from '../../main/core/app-core.js';
import type { AppServices } from '../../main/core/app-services.js';
import { MemorySecretStore } from '../../main/core/platform/secret-store.js';
import type { EnvironmentProfile } from '../../main/core/store/environments-repo.js';
import { enqueueOrders } from '../../main/core/store/store.js';
import { startSandbox, type RunningSandbox } from '../../sandbox/index.js';
import { startFaultProxy, type RunningProxy } from './support/fault-proxy.js';
import { DEFAULT_SENDING_PACE } from '../../shared/environment.js';
import { LOCAL } from '../../main/core/store/testing/store-fixtures.js';
import {
  ENVIRONMENT_ID,
  expectEachCreatedOnce,
  removeDir,
  sampleOrders,
  tempDataDir,
} from './support/outbox-fixture.js';

const LOCAL_PROFILE: EnvironmentProfile = { ...LOCAL, ...DEFAULT_SENDING_PACE };

// A pace saved in Settings applies to the running submitter and poller at once (issue #3): the core's services
// as the app builds them, real SQLite, the real sandbox on loopback, and a proxy in front of it that counts what
// is in flight at the service.
describe('a saved pace applies while sending', () => {
  let sandbox: RunningSandbox;
  let proxy: RunningProxy;
  let services: AppServices;
  let dataDir: string;
  let batchId: number;
  let profile: EnvironmentProfile;
  const allIds: string[] = [];

  const creates = () => proxy.received().filter((r) => /\/Order\/create/.test(r.url)).length;
  const statusLookups = () => proxy.received().filter((r) => /status-with-clinic-code/i.test(r.url)).length;
  const sentAtSandbox = (ids: readonly string[]) =>
    sandbox.listOrders().filter((order) => ids.includes(order.clinicOrderId)).length;

  async function save(change: Partial<EnvironmentProfile>): Promise<void> {
    profile = { ...profile, ...change };
    // What 'environments.save' does with the admin's profile.
    await services.registry.update(profile);
  }

  function queue(prefix: string, count: number): string[] {
    const orders = sampleOrders(prefix, count);
    enqueueOrders(services.store, batchId, orders);
    const ids = orders.map((order) => order.clinicOrderId);
    allIds.push(...ids);
    services.outbox.notify(ENVIRONMENT_ID);
    return ids;
  }

  beforeAll(async () => {
    sandbox = await startSandbox({ statusStepMs: 60_000 });
    // Only creates are counted in flight: the poller's lookups have their own small budget.
    proxy = await startFaultProxy(
      sandbox.apiUrl,
      () => 'forward',
      (req) => /\/Order\/create/.test(req.url),
    );
    dataDir = tempDataDir('rx-live-pace-');
    services = await openServices({
      dataDir,
      secrets: new MemorySecretStore(),
      appVersion: '0.0.0-test',
      outboxTuning: { baseDelayMs: 20, maxDelayMs: 200, breakerCooldownMs: 50, reconcileDelayMs: 20 },
      // No minIntervalMs here, so the poller takes each environment's stored poll interval.
      pollerTuning: { ratePerSecond: 100, maxIntervalMs: 60_000 },
    });
    profile = {
      ...LOCAL_PROFILE,
      apiBaseUrl: proxy.url,
      issuer: sandbox.issuer,
      clientId: sandbox.serviceClient.clientId,
      grant: 'client_credentials',
      requestTimeoutMs: 10_000,
      concurrency: 1,
      ratePerSecond: 100,
      pollIntervalMs: 86_400_000,
    };
    await services.registry.update(profile);
    expect(await services.signin.clientCredentials(ENVIRONMENT_ID, sandbox.serviceClient.clientSecret)).toEqual({
      ok: true,
    });
    batchId = services.store.batches.create({
      environmentId: ENVIRONMENT_ID,
      sourceFileName: 'orders.json',
      kind: 'json',
      rowCount: 0,
      invalidCount: 0,
    }).id;
    services.startEnvironment(ENVIRONMENT_ID);
  }, 60_000);

  afterAll(async () => {
    await services?.close();
    await proxy?.close();
    await sandbox?.close();
    if (dataDir) removeDir(dataDir);
  });

  it('raising concurrency from 1 to 4 mid-run puts up to 4 creates in flight at once, each order sent once', async () => {
    sandbox.setFaults({ latencyMs: 150 });
    try {
      const ids = queue('RAISE', 40);
      await vi.waitFor(() => expect(sentAtSandbox(ids)).toBeGreaterThanOrEqual(3), { timeout: 20_000, interval: 20 });
      expect(proxy.maxInFlight()).toBe(1);

      proxy.resetMaxInFlight();
      await save({ concurrency: 4 });
      await vi.waitFor(() => expect(proxy.maxInFlight()).toBe(4), { timeout: 20_000, interval: 10 });
      await services.outbox.runUntilIdle(ENVIRONMENT_ID);
      expect(proxy.maxInFlight()).toBe(4);
      expectEachCreatedOnce(sandbox, services.store, ids, () => services.verifyAuditLog());
    } finally {
      sandbox.setFaults({ latencyMs: 0 });
    }
  }, 60_000);

  it('lowering the rate slows sending at once; raising it again finishes the batch, each order once', async () => {
    await save({ concurrency: 1, ratePerSecond: 100 });
    sandbox.setFaults({ latencyMs: 50 });
    const ids = queue('SLOW', 60);
    try {
      await vi.waitFor(() => expect(sentAtSandbox(ids)).toBeGreaterThanOrEqual(2), { timeout: 20_000, interval: 5 });
      await save({ ratePerSecond: 1 });
      const before = sentAtSandbox(ids);
      const startedAt = performance.now();
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const elapsedSeconds = (performance.now() - startedAt) / 1000;
      // At one a second: the request in flight when the pace changed, one token at most, then one per second.
      expect(sentAtSandbox(ids) - before).toBeLessThanOrEqual(2 + Math.ceil(elapsedSeconds));
      expect(services.outbox.progress(ENVIRONMENT_ID).counts.queued).toBeGreaterThan(0);
    } finally {
      sandbox.setFaults({ latencyMs: 0 });
    }
    await save({ ratePerSecond: 100, concurrency: 4 });
    await services.outbox.runUntilIdle(ENVIRONMENT_ID);
    expectEachCreatedOnce(sandbox, services.store, ids, () => services.verifyAuditLog());
  }, 60_000);

  it('a shorter poll interval takes effect at once: orders the poller would look at tomorrow are looked up now', async () => {
    // The interval was a day: the orders created above have not been looked up since their creation.
    const lookupsBefore = statusLookups();
    const open = services.store.orders
      .list({ environmentId: ENVIRONMENT_ID, states: ['created'], afterId: 0, limit: 500 })
      .filter((order) => order.pharmacyOrderId !== null);
    expect(open.length).toBe(100);
    await save({ pollIntervalMs: 5_000 });
    await vi.waitFor(() => expect(statusLookups() - lookupsBefore).toBeGreaterThanOrEqual(open.length), {
      timeout: 30_000,
      interval: 50,
    });
    for (const order of open)
      expect(services.poller.intervalOf(ENVIRONMENT_ID, order.id)).toBeGreaterThanOrEqual(5_000);
  }, 60_000);

  it('a new base URL signs the environment out; after sign-in it is used (the client is rebuilt), nothing sent twice', async () => {
    const viaProxy = creates();
    await save({ apiBaseUrl: sandbox.apiUrl });
    // Another API origin is another identity: the sign-in made for the proxy's origin is gone (docs/security.md).
    expect((await services.signin.status(ENVIRONMENT_ID)).signedIn).toBe(false);
    expect(await services.signin.clientCredentials(ENVIRONMENT_ID, sandbox.serviceClient.clientSecret)).toEqual({
      ok: true,
    });
    const ids = queue('DIRECT', 10);
    await services.outbox.runUntilIdle(ENVIRONMENT_ID);
    expect(creates()).toBe(viaProxy);
    expectEachCreatedOnce(sandbox, services.store, ids, () => services.verifyAuditLog());
    expectEachCreatedOnce(sandbox, services.store, allIds, () => services.verifyAuditLog());
  }, 60_000);
});
