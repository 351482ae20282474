import type { ChoosePurpose, ImportFiles } from '../../shared/desktop-contract.js';
import type { CallResult } from '../../shared/transport-protocol.js';
import { createCore, type Core, type CoreOptions } from '../core/app-core.js';
import { plainFileSecrets } from '../core/audit/chain-key.js';
import { MemorySecretStore, type SecretStore } from '../core/platform/secret-store.js';
import type { ConfirmQuestion, DesktopIntegration, SaveRequest } from '../core/desktop-handlers.js';
import { ANY_PATH, importFolders, NO_PATH, type ImportPathPolicy } from '../core/import-path-policy.js';
import type { LogFields, Logger } from '../core/platform/logger.js';
import { dispatchCall } from '../transport/dispatch.js';
import {
  replySchemas,
  salvageId,
  shellMessageSchema,
  type HostMessage,
  type HostService,
  type HostServiceArgs,
  type HostServiceReply,
  type HostStartOptions,
  type ShellMessage,
} from './host-protocol.js';

/**
 * The core host's side of the protocol (host-protocol.ts): builds the core with createCore when the shell says
 * `start`, answers calls through dispatchCall (the same door as every transport), forwards the core's events, and
 * turns what only the shell can do (secrets, dialogs, path grants) into requests. It stops cleanly (core.close(),
 * then exit) on `stop`, on SIGTERM, or when the shell goes away. core-host.ts is the process entry that runs it.
 */

/** The host's line to the shell: Electron's `process.parentPort` or Node's fork IPC (`process.send`). */
export interface HostPort {
  send(message: HostMessage): void;
  onMessage(listener: (message: unknown) => void): void;
  /** The shell went away (the IPC channel closed). */
  onDisconnect(listener: () => void): void;
  /** Resolves when what was sent has left this process (so an exit does not cut the last message off). */
  drained(): Promise<void>;
}

interface ElectronParentPort {
  postMessage(message: unknown): void;
  on(event: 'message', listener: (event: { data: unknown }) => void): unknown;
}

/** The port of this process: an Electron utility process's parentPort, else Node's fork IPC channel. */
export function parentHostPort(): HostPort {
  const electronPort = (process as unknown as { parentPort?: ElectronParentPort | null }).parentPort;
  if (electronPort) {
    return {
      send: (message) => electronPort.postMessage(message),
      onMessage: (listener) => void electronPort.on('message', (event) => listener(event.data)),
      // A utility process ends with its parent.
      onDisconnect: () => {},
      drained: () => Promise.resolve(),
    };
  }
  const send = process.send?.bind(process);
  if (!send) throw new Error('the core host runs as a child process (child_process.fork or utilityProcess.fork)');
  let unsent = 0;
  const onDrained: Array<() => void> = [];
  const sent = () => {
    unsent -= 1;
    if (unsent === 0) for (const resolve of onDrained.splice(0)) resolve();
  };
  return {
    send(message) {
      // The shell may be gone already (it is then stopping us, or dead): nothing to tell it.
      if (!process.connected) return;
      unsent += 1;
      send(message, undefined, undefined, sent);
    },
    onMessage: (listener) => void process.on('message', listener),
    onDisconnect: (listener) => void process.on('disconnect', listener),
    drained: () =>
      unsent === 0 || !process.connected
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            onDrained.push(resolve);
            // A shell that stopped reading must not keep the host alive.
            setTimeout(resolve, 2_000).unref();
          }),
  };
}

export class ShellRequestError extends Error {
  constructor(service: HostService, message: string) {
    super(`${service}: ${message}`);
    this.name = 'ShellRequestError';
  }
}

/** Requests to the shell and their answers, each parsed with the schema of what was asked. */
class ShellRequests {
  readonly #send: (message: HostMessage) => void;
  readonly #pending = new Map<
    number,
    { service: HostService; resolve: (value: unknown) => void; reject: (error: Error) => void }
  >();
  #nextId = 1;

  constructor(send: (message: HostMessage) => void) {
    this.#send = send;
  }

  ask<S extends HostService>(service: S, args: HostServiceArgs<S>): Promise<HostServiceReply<S>> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { service, resolve: resolve as (value: unknown) => void, reject });
      this.#send({ type: 'request', id, service, args } as HostMessage);
    });
  }

  /** False when no request has this id (a reply twice, or made up). */
  settle(reply: Extract<ShellMessage, { type: 'reply' }>): boolean {
    const pending = this.#pending.get(reply.id);
    if (!pending) return false;
    this.#pending.delete(reply.id);
    if (!reply.ok) {
      pending.reject(new ShellRequestError(pending.service, reply.message));
      return true;
    }
    const value = replySchemas[pending.service].safeParse(reply.value);
    if (value.success) pending.resolve(value.data);
    else pending.reject(new ShellRequestError(pending.service, 'the answer is outside the protocol'));
    return true;
  }

  failAll(reason: string): void {
    for (const [id, pending] of this.#pending) {
      this.#pending.delete(id);
      pending.reject(new ShellRequestError(pending.service, reason));
    }
  }
}

/** Sign-in secrets kept by the shell (safeStorage in the desktop app): the host holds none itself. */
class ShellSecretStore implements SecretStore {
  constructor(readonly requests: ShellRequests) {}
  get(key: string): Promise<string | null> {
    return this.requests.ask('secrets.get', { key });
  }
  async set(key: string, value: string): Promise<void> {
    await this.requests.ask('secrets.set', { key, value });
  }
  async delete(key: string): Promise<void> {
    await this.requests.ask('secrets.delete', { key });
  }
}

/** The desktop shell's dialogs, files from the OS and file manager, asked for over the protocol. */
class ShellDesktop implements DesktopIntegration {
  constructor(readonly requests: ShellRequests) {}
  chooseFiles(purpose: ChoosePurpose): Promise<ImportFiles> {
    return this.requests.ask('desktop.chooseFiles', { purpose });
  }
  takeImportRequests(): Promise<ImportFiles> {
    return this.requests.ask('desktop.takeImportRequests', {});
  }
  openDataFolder(): Promise<{ problem?: string }> {
    return this.requests.ask('desktop.openDataFolder', {});
  }
  confirm(question: ConfirmQuestion): Promise<boolean> {
    return this.requests.ask('desktop.confirm', { question });
  }
  chooseSavePath(request: SaveRequest): Promise<string | null> {
    return this.requests.ask('desktop.chooseSavePath', { request });
  }
}

/** Log lines go to the shell, which writes them where its own go (the desktop app's rotated file, stderr). */
function forwardingLogger(send: (message: HostMessage) => void): Logger {
  const write = (level: 'info' | 'warn' | 'error', message: string, fields?: LogFields) => {
    const defined = fields
      ? Object.fromEntries(
          Object.entries(fields).filter(
            (entry): entry is [string, string | number | boolean | null] => entry[1] !== undefined,
          ),
        )
      : undefined;
    send({ type: 'log', level, message, ...(defined ? { fields: defined } : {}) });
  };
  return {
    info: (message, fields) => write('info', message, fields),
    warn: (message, fields) => write('warn', message, fields),
    error: (message, fields) => write('error', message, fields),
  };
}

async function importPathPolicy(
  choice: HostStartOptions['importPaths'],
  requests: ShellRequests,
): Promise<ImportPathPolicy> {
  switch (choice.kind) {
    case 'any':
      return ANY_PATH;
    case 'none':
      return NO_PATH;
    case 'folders':
      return importFolders(choice.folders);
    case 'shell':
      return {
        allow: async (path, purpose) => (await requests.ask('importPaths.allow', { path, purpose })) ?? undefined,
      };
  }
}

/** createCore's options from the start message: the stores and policies it names, made here or proxied. */
async function coreOptionsFor(
  options: HostStartOptions,
  requests: ShellRequests,
  logger: Logger,
): Promise<CoreOptions> {
  const plainFile = () => plainFileSecrets(options.dataDir);
  const secrets: SecretStore =
    options.secrets === 'shell'
      ? new ShellSecretStore(requests)
      : options.secrets === 'plain-file'
        ? plainFile()
        : new MemorySecretStore();
  return {
    dataDir: options.dataDir,
    appVersion: options.appVersion,
    transport: options.transport,
    secrets,
    ...(options.auditKeys === 'plain-file' ? { auditKeys: plainFile() } : {}),
    ...(options.checkPlainFileAuditKey ? { auditCheckKeys: [plainFile()] } : {}),
    logger,
    importPaths: await importPathPolicy(options.importPaths, requests),
    ...(options.desktop ? { desktop: new ShellDesktop(requests) } : {}),
    startLocalSandbox: options.localSandbox.start,
    ...(options.localSandbox.statusStepMs !== undefined
      ? { localSandboxStatusStepMs: options.localSandbox.statusStepMs }
      : {}),
    localSandboxAdminRoutes: options.localSandbox.adminRoutes === true,
    ...(options.startOutbox !== undefined ? { startOutbox: options.startOutbox } : {}),
    ...(options.outboxTuning ? { outboxTuning: options.outboxTuning } : {}),
    ...(options.pollerTuning ? { pollerTuning: options.pollerTuning } : {}),
  };
}

const ENVELOPE_HELP = 'a call is {"type": "call", "id": <integer>, "call": <call name>, "input": <object>}';

function errorName(error: unknown): string {
  return error instanceof Error ? error.name : typeof error;
}

export interface CoreHostOptions {
  port: HostPort;
  exit(code: number): void;
  /** Builds the core; createCore unless a test says otherwise. */
  createCore?: (options: CoreOptions) => Promise<Core>;
}

export interface RunningCoreHost {
  /** Closes the core (if built), says `stopped`, then exits 0. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Serves one shell until it stops the host. Every message is parsed first (shellMessageSchema); a message that
 * does not parse is refused (a call with a usable id is answered `invalid-input`, anything else only logged).
 */
export function runCoreHost(options: CoreHostOptions): RunningCoreHost {
  const { port } = options;
  const send = (message: HostMessage) => port.send(message);
  const logger = forwardingLogger(send);
  const requests = new ShellRequests(send);
  const build = options.createCore ?? createCore;
  let starting: Promise<Core | undefined> | undefined;
  let core: Core | undefined;
  let unsubscribe: (() => void) | undefined;
  let stopping: Promise<void> | undefined;

  const answer = async (id: number, name: string, input: unknown) => {
    const result: CallResult = core
      ? await dispatchCall(core.handlers, name, input)
      : { ok: false, error: { code: 'disconnected', message: 'the core is not running' } };
    send({ type: 'result', id, ...result });
  };

  const start = (startOptions: HostStartOptions) => {
    starting = (async () => {
      try {
        const built = await build(await coreOptionsFor(startOptions, requests, logger));
        if (stopping) {
          await built.close();
          return undefined;
        }
        core = built;
        unsubscribe = built.events.subscribeAll((event, payload) => send({ type: 'event', event, payload }));
        send({ type: 'ready' });
        return built;
      } catch (error) {
        // The one sentence the shell shows (e.g. "already open by PID 4242"); the core's own messages name no patient.
        const message = error instanceof Error ? error.message : 'the core could not start';
        send({ type: 'failed', message: message.slice(0, 2000) });
        logger.error('core host could not start', { reason: errorName(error) });
        await port.drained();
        options.exit(1);
        return undefined;
      }
    })();
  };

  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      let code = 0;
      try {
        await starting;
        unsubscribe?.();
        requests.failAll('the core is stopping');
        await core?.close();
      } catch (error) {
        logger.error('core host did not close cleanly', { reason: errorName(error) });
        code = 1;
      }
      send({ type: 'stopped' });
      await port.drained();
      options.exit(code);
    })();
    return stopping;
  };

  const refuse = (raw: unknown) => {
    const id = salvageId(raw);
    const isCall = typeof raw === 'object' && raw !== null && 'type' in raw && raw.type === 'call';
    if (isCall && id !== null) {
      send({ type: 'result', id, ok: false, error: { code: 'invalid-input', message: ENVELOPE_HELP } });
    } else {
      logger.warn('core host refused a message from the shell', { kind: typeof raw });
    }
  };

  port.onMessage((raw) => {
    const parsed = shellMessageSchema.safeParse(raw);
    if (!parsed.success) return refuse(raw);
    const message = parsed.data;
    switch (message.type) {
      case 'start':
        if (starting) logger.warn('core host refused a second start');
        else start(message.options);
        return;
      case 'call':
        if (stopping) {
          send({
            type: 'result',
            id: message.id,
            ok: false,
            error: { code: 'disconnected', message: 'the core is stopping' },
          });
          return;
        }
        void answer(message.id, message.call, message.input);
        return;
      case 'reply':
        if (!requests.settle(message)) logger.warn('core host refused a reply to no request');
        return;
      case 'stop':
        void stop();
        return;
    }
  });
  port.onDisconnect(() => void stop());
  send({ type: 'hello' });
  return { stop };
}
