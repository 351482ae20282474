import type { CallHandlers } from '../../shared/contract.js';
import type { Environment } from '../../shared/environment.js';
import type { ServiceResult } from '../../shared/errors.js';
import type { SecretStore } from './auth/secret-store.js';
import { checkConnection } from './connection-check.js';
import { EnvironmentRegistry } from './environments/registry.js';
import { LOCAL_SANDBOX_ID, presetEnvironments } from './environments/presets.js';
import { CoreEvents } from './events.js';
import { launchLocalSandbox } from './local-sandbox.js';
import { createLogger, type Logger } from './logger.js';
import type { CallOutcome } from './service/client.js';

export interface CoreOptions {
  dataDir: string;
  appVersion: string;
  transport: 'electron' | 'browser' | 'direct';
  secrets: SecretStore;
  logger?: Logger;
  /** Start the local sandbox service (the default environment). Default true. */
  startLocalSandbox?: boolean;
}

export interface Core {
  handlers: CallHandlers;
  events: CoreEvents;
  close(): Promise<void>;
}

/** The service's outcome without the call's bookkeeping, as the contract carries it. */
function result<T>(outcome: CallOutcome<T>): ServiceResult<T> {
  return outcome.ok ? { ok: true, value: outcome.value } : { ok: false, error: outcome.error };
}

/** Secured calls to an environment without a client id cannot succeed: say so without touching the network. */
function notConfigured(environment: Environment): ServiceResult<never> | undefined {
  if (environment.clientId) return undefined;
  return {
    ok: false,
    error: {
      kind: 'auth',
      status: 0,
      message: `${environment.name} has no client id yet: add the one CloudRx issued you, then sign in.`,
    },
  };
}

/**
 * Builds the Electron-free core that every transport (IPC, browser bridge, direct calls) serves. Dependencies
 * (data directory, secret store, logger) come from the caller, so tests, the CLI and the shell build the same.
 */
export async function createCore(options: CoreOptions): Promise<Core> {
  const logger = options.logger ?? createLogger('core');
  const events = new CoreEvents();
  const registry = new EnvironmentRegistry(presetEnvironments(), {
    secrets: options.secrets,
    logger,
    userAgent: `RxBatch/${options.appVersion}`,
  });

  const closers: Array<() => Promise<void>> = [];
  if (options.startLocalSandbox ?? true) {
    const local = await launchLocalSandbox(registry.get(LOCAL_SANDBOX_ID), options.dataDir);
    closers.push(() => local.sandbox.close());
    registry.update(local.environment, true);
    try {
      await registry.session(LOCAL_SANDBOX_ID).signInWithClientCredentials(local.clientSecret);
    } catch (error) {
      // The app still opens; the connection check and calls will say what is wrong.
      logger.warn('local sandbox sign-in failed', { reason: error instanceof Error ? error.name : 'unknown' });
    }
    events.emit('environments.changed', registry.list());
  }

  const handlers: CallHandlers = {
    'app.info': () => Promise.resolve({ name: 'Rx Batch', version: options.appVersion, transport: options.transport }),
    'environments.list': () => Promise.resolve(registry.list()),
    'connection.check': ({ environmentId }) =>
      checkConnection(environmentId, registry.client(environmentId, 'anonymous'), registry.session(environmentId)),
    'couriers.priceList': async ({ environmentId }) =>
      notConfigured(registry.get(environmentId)) ??
      result(await registry.client(environmentId, 'secured').courierPriceList()),
    'products.search': async ({ environmentId, searchTerm }) =>
      result(await registry.client(environmentId, 'anonymous').searchProducts(searchTerm)),
  };

  return {
    handlers,
    events,
    async close() {
      for (const close of closers.reverse()) await close();
    },
  };
}
