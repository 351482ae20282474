import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger, type Logger } from '../main/core/platform/logger.js';
import { ensurePrivateDir } from '../main/core/platform/private-files.js';
import { newAdminToken } from './admin-guard.js';
import { createApiServer } from './api-server.js';
import { FaultSwitches, type SandboxFaults } from './faults.js';
import { startIdentity, type RunningIdentity } from './identity/index.js';
import { DEFAULT_LOCKED_OUT_PATIENTS, type LockedOutPatient } from './order-rules.js';
import { OrderStore, type StoredOrder } from './order-store.js';
import { startStatusProgression } from './status-progression.js';

/**
 * The local sandbox: a stand-in Order Service (all endpoints, chosen defaults, its own SQLite store, orders
 * progressing over time, fault switches) plus a real OAuth 2.0 / OIDC identity server on its own port.
 */

export type { SandboxFaults } from './faults.js';
export type { StoredOrder, OrderRoute } from './order-store.js';
export type { LockedOutPatient } from './order-rules.js';
export type { RunningIdentity } from './identity/index.js';

export interface SandboxOptions {
  /** Port of the API; 0 or absent: any free port. */
  port?: number;
  /** Port of the identity server; 0 or absent: any free port. */
  identityPort?: number;
  /**
   * Keep the identity server's keys, service client secret and sign-ins in `dataDir` (0600 files), so sign-ins
   * outlive a restart, as the app's embedded sandbox does; default off: all new on every start.
   */
  persistIdentity?: boolean;
  /** Where the SQLite file lives (made 0700, its files 0600: they hold patient data); default a fresh temp dir. */
  dataDir?: string;
  /** Pace of status progression in ms; default 30000 (tests use ~50). */
  statusStepMs?: number;
  faults?: Partial<SandboxFaults>;
  accessTokenTtlSeconds?: number;
  /** Patients refused with 403; default one documented patient (Lockhart, 1970-01-01). */
  lockedOutPatients?: Array<{ surname: string; dateOfBirth: string }>;
  /** Clinics known from the start, so v2 creates work on a fresh install; default one demo clinic. */
  seedClinics?: Array<{ clinicCode: string; name: string }>;
  /** Operational log lines (request path, status, latency); default silent. */
  logger?: Logger;
  /**
   * The admin routes (`/__sandbox/orders`, `/__sandbox/faults`, `/__sandbox/cpu`): on for tests and `npm run
   * sandbox`, behind a new token per launch (`adminToken`) and JSON-only POSTs. Default off: the paths answer 404
   * like any unknown one, as in the app's embedded sandbox.
   */
  adminRoutes?: boolean;
}

export interface RunningSandbox {
  /** With trailing slash. */
  apiUrl: string;
  issuer: string;
  deviceClient: { clientId: string };
  serviceClient: { clientId: string; clientSecret: string };
  user: { username: string; password: string };
  /** This launch's admin token (`Authorization: Bearer …` on `/__sandbox/*`); null when the routes are off. */
  adminToken: string | null;
  setFaults(f: Partial<SandboxFaults>): void;
  getFaults(): SandboxFaults;
  listOrders(): StoredOrder[];
  /** API requests received (every `/api/` request, faulted or not), for soak tests. */
  requestCount(): number;
  identity: RunningIdentity;
  close(): Promise<void>;
}

export const DEFAULT_STATUS_STEP_MS = 30_000;
export const DEMO_CLINIC = { clinicCode: 'DEMO-CLINIC', name: 'Rx Batch Demo Clinic' };

export async function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  const logger = options.logger ?? silentLogger;
  const faults = new FaultSwitches(options.faults);
  // A temp dir the sandbox made itself is a throwaway: it is removed on close. A given dataDir is kept.
  const ownDataDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'rxbatch-sandbox-'));
  const removeOwnDataDir = () => {
    if (ownDataDir) rmSync(dataDir, { recursive: true, force: true });
  };
  // Stored orders are patient data: the folder is its owner's alone, whatever the umask or an older version left.
  ensurePrivateDir(dataDir);
  const lockedOut: readonly LockedOutPatient[] = options.lockedOutPatients ?? DEFAULT_LOCKED_OUT_PATIENTS;
  const store = new OrderStore(dataDir, options.seedClinics ?? [DEMO_CLINIC]);
  const adminToken = options.adminRoutes === true ? newAdminToken() : null;

  // The API listens first: its URL is the audience of the access tokens the identity server issues.
  let identity: RunningIdentity | undefined;
  const api = createApiServer({
    store,
    faults,
    lockedOut,
    logger,
    adminToken,
    verifyAccessToken: (token) => identity?.verifyAccessToken(token) ?? Promise.resolve(null),
  });
  try {
    await new Promise<void>((resolve, reject) => {
      api.server.once('error', reject);
      api.server.listen(options.port ?? 0, '127.0.0.1', () => {
        api.server.off('error', reject);
        resolve();
      });
    });
    const { port } = api.server.address() as AddressInfo;
    const apiUrl = `http://127.0.0.1:${port}/`;
    identity = await startIdentity({
      apiAudience: apiUrl,
      ...(options.identityPort ? { port: options.identityPort } : {}),
      ...(options.persistIdentity ? { stateDir: dataDir } : {}),
      ...(options.accessTokenTtlSeconds !== undefined ? { accessTokenTtlSeconds: options.accessTokenTtlSeconds } : {}),
    });
  } catch (error) {
    await api.close().catch(() => undefined);
    store.close();
    removeOwnDataDir();
    throw error;
  }

  const running = identity;
  const stopProgression = startStatusProgression(store, options.statusStepMs ?? DEFAULT_STATUS_STEP_MS, (error) =>
    logger.error('status progression failed', { error: error instanceof Error ? error.message : 'unknown' }),
  );
  const { port } = api.server.address() as AddressInfo;
  let closed: Promise<void> | undefined;
  return {
    apiUrl: `http://127.0.0.1:${port}/`,
    issuer: running.issuer,
    deviceClient: running.deviceClient,
    serviceClient: running.serviceClient,
    user: running.user,
    adminToken,
    setFaults: (patch) => {
      faults.set(patch);
    },
    getFaults: () => faults.get(),
    listOrders: () => store.listOrders(),
    requestCount: () => api.requestCount(),
    identity: running,
    close: () => {
      closed ??= (async () => {
        stopProgression();
        try {
          await api.close();
        } finally {
          store.close();
          removeOwnDataDir();
          await running.close();
        }
      })();
      return closed;
    },
  };
}
