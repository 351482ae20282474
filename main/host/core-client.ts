import {
  calls,
  events as eventSchemas,
  isCallName,
  type CallInput,
  type CallName,
  type CallOutput,
  type EventName,
  type EventPayload,
} from '../../shared/contract.js';
import { ContractError } from '../../shared/errors.js';
import type { CallResult } from '../../shared/transport-protocol.js';
import type { SecretStore } from '../core/platform/secret-store.js';
import type { DesktopIntegration } from '../core/desktop-handlers.js';
import { CoreEvents } from '../core/platform/events.js';
import type { ImportPathPolicy } from '../core/import-path-policy.js';
import { silentLogger, type Logger } from '../core/platform/logger.js';
import type { CoreConnection } from '../transport/core-connection.js';
import { nestsTooDeep, tooDeep, unknownCall } from '../transport/dispatch.js';
import {
  hostMessageSchema,
  type HostMessage,
  type HostRequest,
  type HostStartOptions,
  type ShellMessage,
} from './host-protocol.js';

/**
 * The shell's side of the core host (host-protocol.ts): starts the host process through an injected spawner (Node's
 * fork, Electron's utilityProcess), carries calls and events, serves the host's requests from the shell's own
 * services, and restarts the host when it dies. Calls in flight when it dies end `disconnected`; calls made while
 * it restarts wait for it (up to `callWaitMs`). The `app.core` event says at once that it is restarting, and again
 * when it runs or when the client gave up. Nothing accepted is lost: the core keeps everything in SQLite.
 */

/** One host process as the spawner started it. */
export interface HostChannel {
  readonly pid: number | undefined;
  /** False when the message could not be sent (the process is gone). */
  send(message: ShellMessage): boolean;
  onMessage(listener: (message: unknown) => void): void;
  /** Once, when the process has ended. */
  onExit(listener: (code: number | null, signal: string | null) => void): void;
  /** Ends it now (SIGKILL where the platform has it). */
  kill(): void;
}

export type HostSpawner = () => HostChannel;

/** What only the shell can do, served when the host asks (each optional: absent ones are refused). */
export interface HostServices {
  secrets?: SecretStore;
  desktop?: DesktopIntegration;
  importPaths?: ImportPathPolicy;
}

export interface RestartPolicy {
  /** The first restart after a quick failure waits this long; each further one twice as long, up to maxDelayMs. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** A host that dies within this long of being ready (or before it is) failed quickly. */
  quickMs: number;
  /** Quick failures in a row after which the client stops restarting it. */
  maxQuickFailures: number;
  /** How long a call made while the host restarts waits for it before it ends `disconnected`. */
  callWaitMs: number;
}

export const DEFAULT_RESTART_POLICY: RestartPolicy = {
  baseDelayMs: 250,
  maxDelayMs: 8_000,
  quickMs: 30_000,
  maxQuickFailures: 5,
  callWaitMs: 20_000,
};

export interface CoreClientOptions {
  spawn: HostSpawner;
  start: HostStartOptions;
  services?: HostServices;
  /** Where the host's log lines and the client's own go. */
  logger?: Logger;
  restart?: Partial<RestartPolicy>;
  /** From spawn to `ready` (the core opens its store and starts the local sandbox). Default 60 s. */
  startTimeoutMs?: number;
  /** From `stop` to the host's exit, after which it is killed. Default 20 s. */
  stopTimeoutMs?: number;
}

export type CoreHostState = 'idle' | 'starting' | 'running' | 'restarting' | 'failed' | 'stopping' | 'stopped';

function disconnected(message: string): CallResult {
  return { ok: false, error: { code: 'disconnected', message } };
}

const LOST = 'The app’s core stopped while answering this; it is restarting. Try again in a moment.';
const NOT_RUNNING = 'The app’s core is not running. Restart Rx Batch.';
const STILL_RESTARTING = 'The app’s core is still restarting. Try again in a moment.';

/** True when `promise` settles within `ms`. */
async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([promise.then(() => true as const), late]);
  } finally {
    clearTimeout(timer);
  }
}

interface PendingCall {
  name: CallName | undefined;
  resolve(result: CallResult): void;
}

/** One spawned host process: its calls in flight, its readiness, its end. */
class HostRun {
  readonly channel: HostChannel;
  readonly pending = new Map<number, PendingCall>();
  nextId = 1;
  readyAt: number | undefined;
  exited = false;
  readonly ready: Promise<void>;
  resolveReady!: () => void;
  rejectReady!: (error: Error) => void;

  constructor(channel: HostChannel) {
    this.channel = channel;
    this.ready = new Promise((resolve, reject) => {
      this.resolveReady = resolve;
      this.rejectReady = reject;
    });
    // Observed by whoever awaits it; an unobserved failure is not an unhandled rejection.
    this.ready.catch(() => {});
  }

  call(name: unknown, input: unknown): Promise<CallResult> {
    if (!isCallName(name)) return Promise.resolve(unknownCall(name));
    // The channel serialises the input: one nested too deep would throw there (a call never rejects).
    if (nestsTooDeep(input)) return Promise.resolve(tooDeep(name));
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, { name, resolve });
      let sent: boolean;
      try {
        sent = this.channel.send({ type: 'call', id, call: name, input });
      } catch {
        this.pending.delete(id);
        resolve({
          ok: false,
          error: { code: 'invalid-input', message: `the input of ${name} cannot be sent to the core` },
        });
        return;
      }
      if (!sent) {
        this.pending.delete(id);
        resolve(disconnected(LOST));
      }
    });
  }

  settleAll(result: CallResult): void {
    for (const pending of this.pending.values()) pending.resolve(result);
    this.pending.clear();
  }
}

export class CoreClient implements CoreConnection {
  /** The core's events as the host forwards them, and the client's own `app.core`. */
  readonly events = new CoreEvents();
  readonly #options: CoreClientOptions;
  readonly #policy: RestartPolicy;
  readonly #logger: Logger;
  #state: CoreHostState = 'idle';
  #run: HostRun | undefined;
  #quickFailures = 0;
  #restarts = 0;
  #restartTimer: NodeJS.Timeout | undefined;
  #failure: string | undefined;
  /** Calls waiting for a host that is restarting. */
  readonly #waiting = new Set<() => void>();
  #stopped: Promise<void> | undefined;

  constructor(options: CoreClientOptions) {
    this.#options = options;
    this.#policy = { ...DEFAULT_RESTART_POLICY, ...options.restart };
    this.#logger = options.logger ?? silentLogger;
  }

  get state(): CoreHostState {
    return this.#state;
  }

  /** The host's process id while one runs (tests end it with SIGKILL). */
  get pid(): number | undefined {
    return this.#run && !this.#run.exited ? this.#run.channel.pid : undefined;
  }

  /** How many times the host was restarted after dying. */
  get restarts(): number {
    return this.#restarts;
  }

  /** Starts the host and resolves when its core is ready; rejects with the host's own reason if it cannot start. */
  async start(): Promise<void> {
    if (this.#state !== 'idle') throw new Error(`the core host was already started (${this.#state})`);
    this.#state = 'starting';
    const run = this.#spawn();
    try {
      await run.ready;
    } catch (error) {
      if (this.#state === 'starting') {
        this.#state = 'failed';
        this.#failure = error instanceof Error ? error.message : String(error);
        if (!run.exited) run.channel.kill();
      }
      throw error;
    }
    if (this.#state === 'starting') this.#state = 'running';
  }

  /** A contract call, answered by the host's dispatchCall: the same result every transport carries. */
  call(name: unknown, input: unknown): Promise<CallResult> {
    const run = this.#run;
    if (this.#state === 'running' && run && !run.exited) return run.call(name, input);
    return this.#callLater(name, input);
  }

  async #callLater(name: unknown, input: unknown): Promise<CallResult> {
    const run = await this.#runningHost();
    if (typeof run === 'string') return disconnected(run);
    return run.call(name, input);
  }

  /** A typed call for the shell's own use (the desktop's link allow-list): throws the contract's error. */
  async request<N extends CallName>(name: N, input: CallInput<N>): Promise<CallOutput<N>> {
    const result = await this.call(name, input);
    if (!result.ok) throw new ContractError(result.error);
    return result.value as CallOutput<N>;
  }

  subscribeAll(listener: (event: EventName, payload: unknown) => void): () => void {
    return this.events.subscribeAll(listener);
  }

  /** Asks the host to close the core and waits for it to exit (killing it after `stopTimeoutMs`). No restart. */
  stop(): Promise<void> {
    this.#stopped ??= this.#stop();
    return this.#stopped;
  }

  async #stop(): Promise<void> {
    this.#state = 'stopping';
    if (this.#restartTimer) clearTimeout(this.#restartTimer);
    this.#wakeWaiting();
    const run = this.#run;
    if (run && !run.exited) {
      const exited = new Promise<void>((resolve) => run.channel.onExit(() => resolve()));
      run.channel.send({ type: 'stop' });
      if (!(await within(exited, this.#options.stopTimeoutMs ?? 20_000))) {
        this.#logger.warn('core host did not stop in time; ending it');
        run.channel.kill();
        // A host too stuck even for that is left to the OS rather than holding up the shell's own exit.
        if (!(await within(exited, 5_000))) this.#logger.error('core host did not end');
      }
    }
    this.#state = 'stopped';
  }

  #spawn(): HostRun {
    const run = new HostRun(this.#options.spawn());
    this.#run = run;
    const timer = setTimeout(() => {
      run.rejectReady(new Error('the app’s core did not start in time'));
      if (!run.exited) run.channel.kill();
    }, this.#options.startTimeoutMs ?? 60_000);
    void run.ready.then(
      () => clearTimeout(timer),
      () => clearTimeout(timer),
    );
    run.channel.onMessage((raw) => this.#onMessage(run, raw));
    run.channel.onExit((code, signal) => {
      run.exited = true;
      clearTimeout(timer);
      this.#onExit(run, code, signal);
    });
    return run;
  }

  #onMessage(run: HostRun, raw: unknown): void {
    const parsed = hostMessageSchema.safeParse(raw);
    if (!parsed.success) {
      this.#logger.warn('refused a message from the core host', { kind: typeof raw });
      return;
    }
    const message = parsed.data;
    switch (message.type) {
      case 'hello':
        run.channel.send({ type: 'start', options: this.#options.start });
        return;
      case 'ready':
        run.readyAt = Date.now();
        run.resolveReady();
        return;
      case 'failed':
        run.rejectReady(new Error(message.message));
        return;
      case 'result':
        return this.#settle(run, message);
      case 'event':
        return this.#forward(message.event, message.payload);
      case 'request':
        void this.#serve(run, message);
        return;
      case 'log':
        this.#logger[message.level](message.message, message.fields);
        return;
      case 'stopped':
        return;
    }
  }

  #settle(run: HostRun, message: Extract<HostMessage, { type: 'result' }>): void {
    if (message.id === null) {
      this.#logger.warn('the core host refused a call it could not read');
      return;
    }
    const pending = run.pending.get(message.id);
    if (!pending) {
      this.#logger.warn('refused a result for no call from the core host');
      return;
    }
    run.pending.delete(message.id);
    if (!message.ok) return pending.resolve({ ok: false, error: message.error });
    // The host checked it against the contract; a broken host must not pass anything else on.
    const output = pending.name ? calls[pending.name].output.safeParse(message.value) : undefined;
    if (output?.success) return pending.resolve({ ok: true, value: output.data });
    pending.resolve({
      ok: false,
      error: { code: 'internal', message: `${String(pending.name)} produced an answer outside the contract` },
    });
  }

  #forward(event: string, payload: unknown): void {
    // `app.core` is the client's to say; any other name must be the contract's, with a payload to match.
    if (event === 'app.core' || !Object.hasOwn(eventSchemas, event)) {
      this.#logger.warn('refused an event from the core host', { event: event.slice(0, 60) });
      return;
    }
    try {
      this.events.emit(event as EventName, payload as never);
    } catch {
      this.#logger.warn('refused an event outside the contract from the core host', { event });
    }
  }

  async #serve(run: HostRun, request: HostRequest): Promise<void> {
    let reply: ShellMessage;
    try {
      reply = { type: 'reply', id: request.id, ok: true, value: await this.#perform(request) };
    } catch (error) {
      const message = error instanceof Error ? error.message : 'the shell could not do it';
      reply = { type: 'reply', id: request.id, ok: false, message: message.slice(0, 2000) };
    }
    run.channel.send(reply);
  }

  /** One request from the host, served by the shell's services; what the shell has not got is refused. */
  async #perform(request: HostRequest): Promise<unknown> {
    const { secrets, desktop, importPaths } = this.#options.services ?? {};
    const missing = () => new Error(`this shell does not offer ${request.service}`);
    switch (request.service) {
      case 'secrets.get':
        if (!secrets) throw missing();
        return secrets.get(request.args.key);
      case 'secrets.set':
        if (!secrets) throw missing();
        await secrets.set(request.args.key, request.args.value);
        return null;
      case 'secrets.delete':
        if (!secrets) throw missing();
        await secrets.delete(request.args.key);
        return null;
      case 'desktop.chooseFiles':
        if (!desktop) throw missing();
        return desktop.chooseFiles(request.args.purpose);
      case 'desktop.takeImportRequests':
        if (!desktop) throw missing();
        return desktop.takeImportRequests();
      case 'desktop.openDataFolder':
        if (!desktop) throw missing();
        return desktop.openDataFolder();
      case 'desktop.confirm':
        if (!desktop) throw missing();
        return desktop.confirm(request.args.question);
      case 'desktop.chooseSavePath':
        if (!desktop) throw missing();
        return desktop.chooseSavePath(request.args.request);
      case 'importPaths.allow':
        if (!importPaths) throw missing();
        return (await importPaths.allow(request.args.path, request.args.purpose)) ?? null;
    }
  }

  #onExit(run: HostRun, code: number | null, signal: string | null): void {
    run.rejectReady(new Error(`the app’s core stopped before it was ready (${signal ?? `exit code ${code}`})`));
    run.settleAll(disconnected(LOST));
    if (run !== this.#run || this.#state === 'stopping' || this.#state === 'stopped') return;
    if (this.#state === 'starting' || this.#state === 'failed') return;
    this.#logger.error('core host stopped unexpectedly', { code, signal });
    const quick = run.readyAt === undefined || Date.now() - run.readyAt < this.#policy.quickMs;
    this.#quickFailures = quick ? this.#quickFailures + 1 : 0;
    if (this.#quickFailures >= this.#policy.maxQuickFailures) return this.#giveUp();
    this.#state = 'restarting';
    this.#emitState({
      state: 'restarting',
      message: 'The app’s core stopped unexpectedly and is restarting. Orders already accepted are safe.',
    });
    this.#restartTimer = setTimeout(() => this.#restart(), this.#restartDelay());
  }

  /** At once after a long run; after quick failures, baseDelayMs doubling up to maxDelayMs. */
  #restartDelay(): number {
    if (this.#quickFailures === 0) return 0;
    return Math.min(this.#policy.maxDelayMs, this.#policy.baseDelayMs * 2 ** (this.#quickFailures - 1));
  }

  #restart(): void {
    this.#restartTimer = undefined;
    if (this.#state !== 'restarting') return;
    let run: HostRun;
    try {
      run = this.#spawn();
    } catch (error) {
      // Not even started (the entry gone, no processes left): a quick failure like any other.
      this.#logger.error('core host could not be started', { reason: error instanceof Error ? error.name : 'unknown' });
      this.#quickFailures += 1;
      if (this.#quickFailures >= this.#policy.maxQuickFailures) return this.#giveUp();
      this.#restartTimer = setTimeout(() => this.#restart(), this.#restartDelay());
      return;
    }
    run.ready.then(
      () => {
        if (this.#state !== 'restarting' || run !== this.#run) return;
        this.#restarts += 1;
        this.#state = 'running';
        this.#logger.info('core host restarted', { restarts: this.#restarts });
        this.#emitState({ state: 'running' });
        this.#wakeWaiting();
      },
      (error: unknown) => {
        // Its exit (which follows) counts it as a quick failure and schedules the next try.
        this.#logger.warn('core host restart failed', { reason: error instanceof Error ? error.name : 'unknown' });
        if (!run.exited) run.channel.kill();
      },
    );
  }

  #giveUp(): void {
    this.#state = 'failed';
    this.#failure =
      `The app’s core stopped ${this.#quickFailures} times in a row soon after starting, so Rx Batch stopped ` +
      'restarting it. Orders already accepted are safe. Quit and start Rx Batch again; the log says what went wrong.';
    this.#logger.error('core host gave up', { failures: this.#quickFailures });
    this.#emitState({ state: 'failed', message: this.#failure });
    this.#wakeWaiting();
  }

  #emitState(payload: EventPayload<'app.core'>): void {
    this.events.emit('app.core', payload);
  }

  #wakeWaiting(): void {
    for (const wake of this.#waiting) wake();
    this.#waiting.clear();
  }

  /** The running host, or why there is none: waits while it restarts. */
  async #runningHost(): Promise<HostRun | string> {
    if (this.#state === 'restarting') {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          this.#waiting.delete(wake);
          resolve();
        }, this.#policy.callWaitMs);
        const wake = () => {
          clearTimeout(timer);
          resolve();
        };
        this.#waiting.add(wake);
      });
    }
    switch (this.#state) {
      case 'running':
        return this.#run && !this.#run.exited ? this.#run : LOST;
      case 'restarting':
        return STILL_RESTARTING;
      case 'failed':
        return this.#failure ?? NOT_RUNNING;
      default:
        return NOT_RUNNING;
    }
  }
}
