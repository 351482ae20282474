import type { CallHandlers } from '../../shared/contract.js';
import { ContractError } from '../../shared/errors.js';
import { buildHandlers } from './app-handlers.js';
import { AppServices } from './app-services.js';
import type { SecretStore } from './platform/secret-store.js';
import type { DesktopIntegration } from './desktop-handlers.js';
import type { CoreEvents } from './platform/events.js';
import { ANY_PATH, NO_PATH, type ImportPathPolicy } from './import-path-policy.js';
import { startEmbeddedSandbox } from './embedded-sandbox.js';
import { createLogger, type Logger } from './platform/logger.js';
import { Outbox } from './outbox/outbox.js';
import type { OutboxTuning } from './outbox/tuning.js';
import type { PollerTuning } from './tracking/status-poller.js';

export interface CoreOptions {
  dataDir: string;
  appVersion: string;
  transport: 'electron' | 'browser' | 'direct';
  secrets: SecretStore;
  /** Where the audit chain's key and head live; default `secrets` (see AppServicesOptions). */
  auditKeys?: SecretStore;
  /** Other programs' audit key stores, read to check their entries. */
  auditCheckKeys?: readonly SecretStore[];
  logger?: Logger;
  /** Start the local sandbox service (the default environment). Default true. */
  startLocalSandbox?: boolean;
  /** How fast the local sandbox moves orders through their statuses (ms per step); the sandbox's default if absent. */
  localSandboxStatusStepMs?: number;
  /**
   * The local sandbox's admin routes (raw order bodies, fault switches), for end-to-end tests only: its token goes
   * to a 0600 file in the data directory (local-sandbox.ts). Default off: the routes answer 404.
   */
  localSandboxAdminRoutes?: boolean;
  /** Start sending and status tracking for every environment with a client id. Default true. */
  startOutbox?: boolean;
  /** The clock for the store, the outbox and the poller; tests may pass their own. */
  now?: () => Date;
  outboxTuning?: Partial<OutboxTuning>;
  pollerTuning?: Partial<PollerTuning>;
  /**
   * Which paths `import.file` may read (import-path-policy.ts). Default: any for direct calls (the CLI, tests),
   * none in browser mode (the bridge host passes the folders its command line names), and the desktop shell
   * passes the files the admin handed over.
   */
  importPaths?: ImportPathPolicy;
  /** Native dialogs, files from the OS and the file manager: the desktop shell's, absent elsewhere. */
  desktop?: DesktopIntegration;
}

export interface Core {
  handlers: CallHandlers;
  events: CoreEvents;
  /** The working parts behind the handlers, for in-process front ends (the CLI) and tests. */
  services: AppServices;
  close(): Promise<void>;
}

const PATH_REFUSED =
  'That path cannot be imported here. Choose or drop the file instead; to import large files by path in a ' +
  'browser, start Rx Batch with --import-dir FOLDER and put them in that folder.';

/**
 * `import.file` with a path reads only what the policy allows, and a refusal says nothing about the file. Also used
 * by `rx-batch serve --ui`, which composes the handlers over its own services (main/cli/commands/serve-ui.ts).
 */
export function guardImportPaths(handlers: CallHandlers, policy: ImportPathPolicy): CallHandlers {
  const importFile = handlers['import.file'];
  return {
    ...handlers,
    'import.file': async (input) => {
      if (input.path === undefined) return importFile(input);
      const path = await policy.allow(input.path, 'import');
      if (path === undefined) throw new ContractError({ code: 'forbidden', message: PATH_REFUSED });
      return importFile({ ...input, path });
    },
  };
}

/**
 * Opens the core's services over a data directory with the real submitter; the CLI builds on this too. The
 * audit key is loaded before it resolves, so every append is keyed.
 */
export async function openServices(options: {
  dataDir: string;
  secrets: SecretStore;
  auditKeys?: SecretStore;
  auditCheckKeys?: readonly SecretStore[];
  appVersion: string;
  logger?: Logger;
  now?: () => Date;
  outboxTuning?: Partial<OutboxTuning>;
  pollerTuning?: Partial<PollerTuning>;
  /** See AppServicesOptions.owner. */
  owner?: string;
}): Promise<AppServices> {
  const services = new AppServices({
    dataDir: options.dataDir,
    ...(options.owner ? { owner: options.owner } : {}),
    secrets: options.secrets,
    ...(options.auditKeys ? { auditKeys: options.auditKeys } : {}),
    ...(options.auditCheckKeys ? { auditCheckKeys: options.auditCheckKeys } : {}),
    userAgent: `RxBatch/${options.appVersion}`,
    createOutbox: (deps, tuning) => new Outbox(deps, tuning),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.now ? { now: options.now } : {}),
    ...(options.outboxTuning ? { outboxTuning: options.outboxTuning } : {}),
    ...(options.pollerTuning ? { pollerTuning: options.pollerTuning } : {}),
  });
  try {
    await services.openAuditChain();
  } catch (error) {
    await services.close();
    throw error;
  }
  return services;
}

/** How the core names its program in the data directory's PID file (data-dir-lock.ts). */
const OWNER_BY_TRANSPORT: Record<CoreOptions['transport'], string> = {
  electron: 'the Rx Batch desktop app',
  browser: 'Rx Batch in browser mode',
  direct: 'Rx Batch',
};

/**
 * Builds the Electron-free core that every transport (IPC, browser bridge, direct calls) serves. Dependencies
 * (data directory, secret store, logger) come from the caller, so tests, the CLI and the shell build the same.
 * It opens the store (taking the data directory's lock: a second app or CLI on it is refused with the owner's
 * PID), seeds the preset environments on first run, updates the local sandbox's profile with this run's URLs,
 * and starts the outbox and status tracking for every configured environment.
 */
export async function createCore(options: CoreOptions): Promise<Core> {
  const logger = options.logger ?? createLogger('core');
  const services = await openServices({ ...options, logger, owner: OWNER_BY_TRANSPORT[options.transport] });
  const closers: Array<() => Promise<void>> = [];
  try {
    if (options.startLocalSandbox ?? true) {
      closers.push(
        await startEmbeddedSandbox(services, options.dataDir, {
          logger,
          ...(options.localSandboxStatusStepMs !== undefined ? { statusStepMs: options.localSandboxStatusStepMs } : {}),
          adminRoutes: options.localSandboxAdminRoutes === true,
        }),
      );
    }
    if (options.startOutbox ?? true) services.startConfiguredEnvironments();
  } catch (error) {
    await services.close();
    for (const close of closers.reverse()) await close();
    throw error;
  }
  services.events.emit('environments.changed', services.registry.list());

  const importPaths = options.importPaths ?? (options.transport === 'direct' ? ANY_PATH : NO_PATH);
  const handlers = buildHandlers(
    services,
    {
      name: 'Rx Batch',
      version: options.appVersion,
      transport: options.transport,
      dataDir: options.dataDir,
      ...(importPaths.folders ? { importFolders: [...importPaths.folders] } : {}),
      // The desktop integration asks before a shorter retention (retention-handlers.ts): said here, so the page does not.
      ...(options.desktop ? { desktop: { fileDialogs: true, openDataFolder: true, confirmRetention: true } } : {}),
    },
    options.desktop,
    importPaths,
  );

  let closed: Promise<void> | undefined;
  return {
    handlers: guardImportPaths(handlers, importPaths),
    events: services.events,
    services,
    close() {
      // The outbox and poller stop (requests in flight settle) before the local sandbox goes away.
      closed ??= (async () => {
        try {
          await services.close();
        } finally {
          for (const close of closers.reverse()) await close();
        }
      })();
      return closed;
    },
  };
}
