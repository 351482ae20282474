import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { EventPayload } from '../../shared/contract.js';
import { DEFAULT_CODE_LISTS, ORDER_SERVICE_SCOPES } from '../../shared/environment.js';
import { startSandbox, type RunningSandbox } from '../../sandbox/index.js';
import { expectEachCreatedOnce } from '../../test/outbox/support/outbox-fixture.js';
import { sampleCreateWithClinic } from '../../test/support/orders.js';
import { MemorySecretStore } from '../core/platform/secret-store.js';
import { authSecretKeys } from '../core/auth/token-record.js';
import { writeTemplateCsv } from '../core/importing/template-csv.js';
import { silentLogger } from '../core/platform/logger.js';
import { ACCEPT_STEP_ORDERS } from '../core/staging/staging-service.js';
import { openStore } from '../core/store/store.js';
import { CoreClient } from './core-client.js';
import { forkSpawner } from './fork-spawner.js';

/**
 * The core host killed where it hurts: a real child (the host entry, forked through the client the shells use)
 * importing and accepting a batch of orders and sending them to a real sandbox (on loopback, in this process, with
 * latency and commit-then-drop faults). It is SIGKILLed in the middle of the accept and three times while it sends;
 * each time the client says so, restarts it, and the same calls carry on. Afterwards SQLite holds every accepted
 * order once and the sandbox created each exactly once; the audit chain verifies.
 */

const ORDERS = 3_000;
const ENVIRONMENT = 'host-crash';
const SUBMIT_KILLS = 3;

let sandbox: RunningSandbox;
let client: CoreClient;
let dir: string;
let dataDir: string;
const secrets = new MemorySecretStore();
const coreStates: Array<EventPayload<'app.core'>> = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rxbatch-host-crash-'));
  dataDir = join(dir, 'data');
  mkdirSync(join(dir, 'batches'));
  sandbox = await startSandbox({ statusStepMs: 3_600_000, faults: { latencyMs: 3, commitThenDropRate: 0.03 } });
  client = new CoreClient({
    spawn: forkSpawner(),
    start: {
      dataDir,
      appVersion: '9.9.9',
      transport: 'browser',
      secrets: 'shell',
      importPaths: { kind: 'folders', folders: [join(dir, 'batches')] },
      desktop: false,
      localSandbox: { start: false },
      outboxTuning: {
        concurrency: 8,
        ratePerSecond: 5_000,
        baseDelayMs: 10,
        maxDelayMs: 200,
        reconcileDelayMs: 20,
        breakerThreshold: 8,
        breakerCooldownMs: 100,
      },
      pollerTuning: { minIntervalMs: 3_600_000, maxIntervalMs: 3_600_000, dispatchRefreshMs: 3_600_000 },
    },
    services: { secrets },
    logger: silentLogger,
    restart: { baseDelayMs: 20, maxQuickFailures: 20 },
  });
  client.events.subscribe('app.core', (state) => coreStates.push(state));
  await client.start();
}, 60_000);

afterAll(async () => {
  await client?.stop();
  await sandbox?.close();
  rmSync(dir, { recursive: true, force: true });
}, 30_000);

/** SIGKILL, as a crash or the OOM killer would; resolves once the client has a new host running. */
async function killHost(): Promise<void> {
  const pid = client.pid;
  expect(pid).toBeGreaterThan(0);
  process.kill(pid!, 'SIGKILL');
  await vi.waitFor(() => expect(client.state).toBe('restarting'), { timeout: 5_000, interval: 5 });
  await vi.waitFor(() => expect(client.state).toBe('running'), { timeout: 30_000, interval: 20 });
  expect(client.pid).not.toBe(pid);
}

async function waitForSandboxOrders(count: number): Promise<void> {
  await vi.waitFor(() => expect(sandbox.listOrders().length).toBeGreaterThanOrEqual(count), {
    timeout: 30_000,
    interval: 10,
  });
}

describe('the core host killed mid-accept and mid-submit', () => {
  it('restarts, and every accepted order is stored once and created at the service exactly once', async () => {
    // Client credentials: the secret and the tokens go to the shell's store, so a restarted host is still signed in.
    const clientSecret = sandbox.serviceClient.clientSecret;
    expect(
      await client.request('environments.save', {
        create: true,
        environment: {
          id: ENVIRONMENT,
          name: 'Crash sandbox',
          kind: 'remote',
          apiBaseUrl: sandbox.apiUrl,
          issuer: sandbox.issuer,
          clientId: sandbox.serviceClient.clientId,
          grant: 'client_credentials',
          scopes: [...ORDER_SERVICE_SCOPES],
          createWithClinicVersion: 'v1',
          requestTimeoutMs: 10_000,
          codeLists: DEFAULT_CODE_LISTS,
          concurrency: 8,
          ratePerSecond: 100,
          pollIntervalMs: 3_600_000,
        },
      }),
    ).toMatchObject({ id: ENVIRONMENT });
    expect(await client.request('signin.clientCredentials', { environmentId: ENVIRONMENT, clientSecret })).toEqual({
      ok: true,
    });
    const keys = authSecretKeys(ENVIRONMENT);
    const kept = { clientSecret: await secrets.get(keys.clientSecret), tokens: await secrets.get(keys.tokens) };
    expect(kept.tokens).toEqual(expect.any(String));
    expect(kept.clientSecret).toContain(clientSecret);

    const clinicOrderIds = Array.from({ length: ORDERS }, (_, index) => `HOST-${String(index + 1).padStart(5, '0')}`);
    const file = join(dir, 'batches', 'big.csv');
    writeFileSync(
      file,
      writeTemplateCsv(clinicOrderIds.map((clinicOrderId) => sampleCreateWithClinic({ clinicOrderId }))),
    );
    const imported = await client.request('import.file', { environmentId: ENVIRONMENT, path: file });
    expect(imported).toMatchObject({ status: 'staged', orders: ORDERS });
    const batchId = (imported as { batchId: number }).batchId;

    // Killed while it accepts: the call ends `disconnected`, the UI hears `restarting` at once, and accepting
    // again after the restart queues exactly what the interrupted accept did not.
    const accepting = client.call('batches.accept', { batchId });
    // An accept of 3,000 orders takes a few hundred ms at least (about 1.8 s on this machine under load).
    await new Promise((resolve) => setTimeout(resolve, 40 + Math.random() * 80));
    await killHost();
    expect(await accepting).toMatchObject({ ok: false, error: { code: 'disconnected' } });
    expect(coreStates.slice(-2).map((state) => state.state)).toEqual(['restarting', 'running']);
    const again = await client.request('batches.accept', { batchId });
    // The accept goes in steps of ACCEPT_STEP_ORDERS, each one transaction (StagingService.acceptAll): what the
    // interrupted accept committed is whole steps, and accepting again queues the rest, so every order is accepted once.
    expect(again.accepted % ACCEPT_STEP_ORDERS).toBe(0);
    expect(again.staying).toBe(0);
    const afterAccept = await client.request('batches.get', { batchId, limit: 1 });
    expect(afterAccept.batch.counts).toMatchObject({ total: ORDERS, accepted: ORDERS, staged: 0 });

    // Killed three times while it sends, each time once more orders have reached the service.
    for (let kill = 0; kill < SUBMIT_KILLS; kill += 1) {
      await waitForSandboxOrders(Math.min(ORDERS - 1, sandbox.listOrders().length + 150));
      if (sandbox.listOrders().length >= ORDERS) break;
      await killHost();
    }
    expect(client.restarts).toBeGreaterThanOrEqual(2);

    await vi.waitFor(
      async () => {
        const progress = await client.request('outbox.progress', { environmentId: ENVIRONMENT });
        expect(progress.counts.created).toBe(ORDERS);
      },
      { timeout: 60_000, interval: 200 },
    );
    const chain = await client.request('log.verify', {});
    if ('cancelled' in chain) throw new Error('nothing cancels this check');
    expect(chain).toMatchObject({ ok: true });
    await client.stop();

    const store = openStore({ dataDir });
    try {
      expectEachCreatedOnce(sandbox, store, clinicOrderIds, () => chain, ENVIRONMENT);
      expect(sandbox.listOrders()).toHaveLength(ORDERS);
      // The kills did land mid-send: orders left `sending` were looked up after each restart, not sent again.
      const actions = store.audit.page(0, 1_000_000).map((row) => row.action);
      expect(actions.filter((action) => action === 'order.interrupted').length).toBeGreaterThan(0);
    } finally {
      store.close();
    }
  }, 120_000);
});
