import { StatusThrottle } from './status-throttle.js';
import type { CodeLists } from '../../../shared/environment.js';
import type { IntakeStatus } from '../../../shared/intake-contract.js';
import { describeIntakeRules, type IntakeRuleSetView } from '../../../shared/intake-rules.js';
import type { Logger } from '../platform/logger.js';
import { StagingService } from '../staging/staging-service.js';
import { lastIntakeMessageId } from '../store/intake-fed-batches.js';
import { inProcessRowSink } from '../store/staged-batch-writer.js';
import type { Store } from '../store/store.js';
import { ChannelActivity, seriesEnd } from './channel-activity.js';
import { FolderWatcher } from './folder-watcher.js';
import { channelView, noteFile, noteMessage, noteRefusal, type IntakeChannel } from './intake-channels.js';
import { serviceRules } from './intake-rules.js';
import { IntakeService } from './intake-service.js';
import { MllpListener } from './mllp-listener.js';

/**
 * The live intake the desktop app (or browser mode) runs while it is open: the same IntakeService, MLLP listener
 * and folder watchers as `rx-batch serve`, with the same rules, for one environment at a time, plus what the
 * Intake screen shows (ChannelActivity per channel). It stops when the core closes: only `serve` runs unattended.
 * The listener is bound to 127.0.0.1 here, always; folders are the ones the caller's policy allowed.
 */

export interface AppIntakeDeps {
  store: Store;
  codeListsFor(environmentId: string): CodeLists;
  notifyOutbox(environmentId: string): void;
  onBatchChanged(change: { environmentId: string; batchId: number }): void;
  /** The status changed (throttled by the caller's `changedEveryMs`). */
  onChanged(status: IntakeStatus): void;
  /** Folders that may be watched; null: any (direct calls). */
  allowedFolders: readonly string[] | null;
  logger?: Logger;
  now?: () => Date;
  /** Watched folders' poll interval (tests); default the watcher's. */
  folderIntervalMs?: number;
  changedEveryMs?: number;
}

export interface AppIntakeStart {
  environmentId: string;
  port?: number;
  /** Already allowed by the policy and resolved. */
  folders: string[];
  /** The rules of this run: the environment's saved ones, with any override for the run already applied. */
  rules: IntakeRuleSetView;
}

interface Running {
  environmentId: string;
  rules: IntakeRuleSetView;
  startedAt: string;
  /** The last intake message row before this start: the listener's batches are the rows after it. */
  afterMessageId: number;
  intake: IntakeService;
  channels: IntakeChannel[];
}

/** Thrown when a start cannot be made as asked (one running already, a port in use): the sentence to show. */
export class AppIntakeError extends Error {}

export class AppIntake {
  readonly #deps: AppIntakeDeps;
  readonly #now: () => Date;
  #running: Running | undefined;
  /** Channels of the last run, shown as stopped until the next start. */
  #stopped: Running | undefined;
  /** Status events while messages arrive: at most one per `changedEveryMs` (default 1 s). */
  readonly #status: StatusThrottle;
  #closed = false;

  constructor(deps: AppIntakeDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? (() => new Date());
    this.#status = new StatusThrottle(deps.changedEveryMs ?? 1000, () => deps.onChanged(this.status()));
  }

  async start(request: AppIntakeStart): Promise<IntakeStatus> {
    if (this.#closed) throw new AppIntakeError('The app is closing.');
    if (this.#running) throw new AppIntakeError('The intake is running already: stop it first to change it.');
    const { store, logger } = this.#deps;
    const staging = new StagingService({
      store,
      codeListsFor: (id) => this.#deps.codeListsFor(id),
      notifyOutbox: (id) => this.#deps.notifyOutbox(id),
      onBatchChanged: (change) => this.#deps.onBatchChanged(change),
      openRowSink: inProcessRowSink,
    });
    const folderStaging = new StagingService({
      store,
      codeListsFor: (id) => this.#deps.codeListsFor(id),
      notifyOutbox: (id) => this.#deps.notifyOutbox(id),
      onBatchChanged: (change) => this.#deps.onBatchChanged(change),
    });
    const intake = new IntakeService({
      store,
      staging,
      environmentId: request.environmentId,
      rules: serviceRules(request.rules),
      ...(logger ? { logger } : {}),
      // The batch of the day grew: the preview refetches it, and enrichment checks the new orders of a checked one.
      onStaged: (batchId) => this.#deps.onBatchChanged({ environmentId: request.environmentId, batchId }),
    });
    const running: Running = {
      environmentId: request.environmentId,
      rules: request.rules,
      startedAt: this.#now().toISOString(),
      afterMessageId: lastIntakeMessageId(store.db),
      intake,
      channels: [],
    };
    this.#running = running;
    this.#stopped = undefined;
    try {
      await intake.recover();
      if (request.port !== undefined) await this.#listen(running, request.port);
      for (const folder of request.folders) this.#watch(running, folder, folderStaging);
    } catch (error) {
      await this.#stopRunning(running);
      this.#running = undefined;
      this.#stopped = running;
      throw error;
    }
    // Who opened a port or watched a folder, and when it ended, are in the log (the address and folders on screen).
    store.audit.append({
      actor: 'user',
      action: 'intake.started',
      environmentId: request.environmentId,
      details: { operation: request.rules.onArrival, intakeRules: describeIntakeRules(request.rules) },
    });
    const status = this.status();
    this.#deps.onChanged(status);
    return status;
  }

  async stop(): Promise<IntakeStatus> {
    const running = this.#running;
    if (running) {
      this.#running = undefined;
      await this.#stopRunning(running);
      this.#stopped = running;
      this.#audit('intake.stopped', running, 'user');
    }
    const status = this.status();
    this.#deps.onChanged(status);
    return status;
  }

  /** The core is closing: the intake stops with it (the message or file in hand finished first). */
  async close(): Promise<void> {
    this.#closed = true;
    this.#status.stop();
    const running = this.#running;
    this.#running = undefined;
    if (running) {
      await this.#stopRunning(running);
      this.#audit('intake.stopped', running, 'system');
    }
  }

  #audit(action: 'intake.stopped', running: Running, actor: 'user' | 'system'): void {
    if (!this.#deps.store.isOpen) return;
    this.#deps.store.audit.append({
      actor,
      action,
      environmentId: running.environmentId,
      details: { operation: running.rules.onArrival, outcome: actor === 'system' ? 'app closed' : 'stopped' },
    });
  }

  status(): IntakeStatus {
    const shown = this.#running ?? this.#stopped;
    return {
      running: this.#running !== undefined,
      environmentId: shown?.environmentId ?? null,
      onArrival: shown?.rules.onArrival ?? null,
      rules: shown?.rules ?? null,
      startedAt: shown?.startedAt ?? null,
      seriesEndsAt: seriesEnd(this.#now()),
      channels: shown ? shown.channels.map((channel) => channelView(this.#deps.store, shown, channel)) : [],
      allowedFolders: this.#deps.allowedFolders ? [...this.#deps.allowedFolders] : null,
      serve: null,
    };
  }

  async #listen(running: Running, port: number): Promise<void> {
    const { intake } = running;
    const activity = new ChannelActivity(this.#now);
    const listener = new MllpListener({
      host: '127.0.0.1',
      port,
      handle: async (raw, peer) => {
        const result = await intake.handle(raw, peer);
        noteMessage(activity, raw, peer, result);
        this.#status.changed();
        return result;
      },
      onRefusal: (refusal) => {
        intake.recordRefusal(refusal);
        noteRefusal(activity, refusal);
        this.#status.changed();
      },
      ...(this.#deps.logger ? { logger: this.#deps.logger } : {}),
    });
    const channel: IntakeChannel = {
      kind: 'mllp',
      address: `127.0.0.1:${port}`,
      state: 'starting',
      activity,
      listener,
    };
    running.channels.push(channel);
    try {
      const bound = await listener.listen();
      channel.address = `${bound.host}:${bound.port}`;
      channel.state = 'listening';
    } catch (error) {
      channel.state = 'failed';
      const code = (error as NodeJS.ErrnoException).code;
      channel.message =
        code === 'EADDRINUSE'
          ? `Port ${port} on 127.0.0.1 is in use by another program (or another Rx Batch): choose another port.`
          : `The listener could not start: ${code ?? (error instanceof Error ? error.message : String(error))}.`;
      channel.listener = undefined;
      throw new AppIntakeError(channel.message);
    }
  }

  #watch(running: Running, folder: string, staging: StagingService): void {
    const activity = new ChannelActivity(this.#now);
    const { store, logger, folderIntervalMs } = this.#deps;
    const watcher = new FolderWatcher({
      dir: folder,
      environmentId: running.environmentId,
      store,
      staging,
      repo: running.intake.repo,
      // An HL7 file follows its senders' rules (hold wins), a CSV file the default (watched-file-rule.ts).
      rules: serviceRules(running.rules),
      ...(logger ? { logger } : {}),
      ...(folderIntervalMs !== undefined ? { intervalMs: folderIntervalMs } : {}),
      onFile: (file) => {
        noteFile(activity, store, file);
        this.#status.changed();
      },
    });
    running.channels.push({ kind: 'folder', address: folder, state: 'watching', activity, watcher });
    watcher.start();
  }

  async #stopRunning(running: Running): Promise<void> {
    await Promise.allSettled(running.channels.map((channel) => channel.listener?.close() ?? Promise.resolve()));
    await Promise.allSettled(running.channels.map((channel) => channel.watcher?.stop() ?? Promise.resolve()));
    await running.intake.close();
    for (const channel of running.channels) if (channel.state !== 'failed') channel.state = 'stopped';
  }
}
