import type { EventName, EventPayload } from '../../shared/contract.js';
import type { AttentionView } from '../../shared/outbox-views.js';
import { AuditChainGuard } from './audit/chain-guard.js';
import type { AuditChainReport } from './audit/verify-chain.js';
import type { SecretStore } from './platform/secret-store.js';
import { EnvironmentRegistry } from './environments/registry.js';
import { presetEnvironments } from './environments/presets.js';
import { CoreEvents } from './platform/events.js';
import { silentLogger, type Logger } from './platform/logger.js';
import { orderAttention, type AttentionEvent } from './outbox/attention.js';
import type { OutboxProgress, OutboxRunResult } from './outbox/progress.js';
import type { OutboxTuning } from './outbox/tuning.js';
import type { OrderServiceClient } from './service/client.js';
import { SignInService } from './signin/signin-service.js';
import { RetentionControl } from './retention-control.js';
import type { RetentionScheduleOptions } from './store/retention-runner.js';
import { AuditSearchIndexer } from './audit/search-indexer.js';
import { openStore, type Store } from './store/store.js';
import { requestCancel, type CancelResult } from './tracking/cancel-request.js';
import { listedDifferentlyNote } from './tracking/listed-differently.js';
import { lostAtServiceReason } from './tracking/lost-at-service.js';
import { StatusPoller, type PollerTuning } from './tracking/status-poller.js';
import { toAttentionView, toProgressView } from './views.js';

/** What the core needs of the submitter (main/core/outbox/): see that folder's README. */
export interface OutboxApi {
  start(environmentId: string): void;
  pause(environmentId: string, reason?: string): void;
  resume(environmentId: string): void;
  /** A sign-in succeeded: ends a sign-in stop, not an admin's pause. */
  signedIn(environmentId: string): void;
  retryNow(orderIds: number[]): number;
  notify(environmentId: string): void;
  /** The environment's stored pace changed: a running environment adopts it at once. */
  applyPace(environmentId: string): void;
  runUntilIdle(
    environmentId: string,
    options?: { signal?: AbortSignal; stopWhenBlocked?: boolean },
  ): Promise<OutboxRunResult>;
  progress(environmentId: string): OutboxProgress;
  /** The environment was removed: its sending stops for good. */
  stopEnvironment(environmentId: string): Promise<void>;
  stop(): Promise<void>;
}

export interface OutboxFactoryDeps {
  store: Store;
  clientFor(environmentId: string): OrderServiceClient;
  now?: () => Date;
  logger?: Logger;
  onProgress?(progress: OutboxProgress): void;
  onAttention?(event: AttentionEvent): void;
}

export interface AppServicesOptions {
  dataDir: string;
  secrets: SecretStore;
  /**
   * Where the audit chain's key and recorded head live (main/core/audit/chain-guard.ts). Default `secrets`; a
   * host whose `secrets` do not last (browser mode's memory) passes a store that does.
   */
  auditKeys?: SecretStore;
  /** Other programs' key stores for this data directory, read to check their entries (the desktop app's). */
  auditCheckKeys?: readonly SecretStore[];
  userAgent: string;
  logger?: Logger;
  now?: () => Date;
  outboxTuning?: Partial<OutboxTuning>;
  pollerTuning?: Partial<PollerTuning>;
  /** Retention in the background (store/retention-runner.ts): its timing, or false for none (tests). */
  retention?: RetentionScheduleOptions | false;
  /** Names this program to another that finds the data directory taken (`rx-batch serve`, the desktop app). */
  owner?: string;
  /** Builds the submitter; the core passes the outbox's own class. */
  createOutbox(deps: OutboxFactoryDeps, tuning: Partial<OutboxTuning>): OutboxApi;
}

/**
 * The core's working parts over one data directory, shared by every front end (the app's transports and the
 * CLI): the store (which takes the directory's lock), persisted environments with their sign-in sessions, the
 * submitter, the status poller, and sign-in. Nothing starts sending until `startEnvironment` is called.
 */
export class AppServices {
  readonly store: Store;
  readonly registry: EnvironmentRegistry;
  /** Where sign-ins and client secrets live (encrypted in the desktop app). */
  readonly secrets: SecretStore;
  readonly events = new CoreEvents();
  readonly outbox: OutboxApi;
  readonly poller: StatusPoller;
  readonly signin: SignInService;
  /** How long staging copies are kept, and the background run that applies it (retention-control.ts). */
  readonly retention: RetentionControl;
  readonly #log: Logger;
  readonly #now: () => Date;
  readonly #auditKeys: SecretStore;
  readonly #auditCheckKeys: readonly SecretStore[];
  #auditChain: AuditChainGuard | undefined;
  /** Work of other modules to stop before the store closes (e.g. a running enrichment check). */
  readonly #beforeClose: Array<() => Promise<void>> = [];
  /** Conditions already announced (environment + kind), until they clear: one notification per condition. */
  readonly #raised = new Set<string>();
  /** Environments whose counts are reported after orders changed, once the current turn ends. */
  readonly #countsDue = new Set<string>();
  #closed = false;

  constructor(options: AppServicesOptions) {
    this.#log = options.logger ?? silentLogger;
    this.#now = options.now ?? (() => new Date());
    this.secrets = options.secrets;
    this.#auditKeys = options.auditKeys ?? options.secrets;
    this.#auditCheckKeys = options.auditCheckKeys ?? [];
    this.store = openStore({
      dataDir: options.dataDir,
      now: this.#now,
      ...(options.owner ? { owner: options.owner } : {}),
    });
    try {
      this.registry = new EnvironmentRegistry(this.store, {
        secrets: options.secrets,
        logger: this.#log,
        userAgent: options.userAgent,
      });
      this.registry.seed(presetEnvironments());
      const clientFor = (environmentId: string) => this.registry.liveClient(environmentId);
      this.outbox = options.createOutbox(
        {
          store: this.store,
          clientFor,
          now: this.#now,
          logger: this.#log,
          onProgress: (progress) => this.#progressed(progress),
          onAttention: (event) => this.#attention(event),
        },
        options.outboxTuning ?? {},
      );
      this.poller = new StatusPoller(
        {
          store: this.store,
          clientFor,
          now: this.#now,
          logger: this.#log,
          onOrdersChanged: (environmentId, orderIds) => this.ordersChanged(environmentId, orderIds),
          onServiceNote: (_environmentId, orderId) => this.serviceNoted(orderId),
          // Told once per spell by the poller: a new spell is announced again.
          onServiceUnreadable: (environmentId, message) => {
            this.#raised.delete(`${environmentId}:service-unreadable`);
            this.#raise({
              environmentId,
              kind: 'service-unreadable',
              message,
              orderIds: [],
              at: this.#now().toISOString(),
            });
          },
          onSignInRequired: (environmentId) =>
            this.#raise({
              environmentId,
              kind: 'sign-in-required',
              message: 'Sign in again: the service no longer accepts this sign-in. Nothing is lost meanwhile.',
              orderIds: [],
              at: this.#now().toISOString(),
            }),
          // Explicit tuning (tests) wins; otherwise each environment polls at its stored pace.
          ...(options.pollerTuning?.minIntervalMs === undefined
            ? { minIntervalFor: (environmentId: string) => this.store.environments.get(environmentId)?.pollIntervalMs }
            : {}),
        },
        options.pollerTuning ?? {},
      );
      // A saved pace applies at once to what is already running (URLs and timeout do by themselves: each request
      // goes through the current profile's client, see registry.liveClient).
      this.registry.onUpdate((profile) => this.#paceChanged(profile.id));
      this.signin = new SignInService({
        registry: this.registry,
        store: this.store,
        logger: this.#log,
        onChange: (change) => this.#emit('signin.changed', change),
        onSignedIn: (environmentId) => this.#signedIn(environmentId),
      });
      this.retention = new RetentionControl(this.store, {
        now: this.#now,
        logger: this.#log,
        schedule: options.retention,
      });
      this.onClose(() => this.retention.stop());
      // The log's free-text index, filled in the background (audit/search-indexer.ts).
      const searchIndexer = new AuditSearchIndexer(this.store, {
        onError: (error) =>
          this.#log.error('the log search index could not be filled; it tries again', {
            error: error instanceof Error ? error.message : String(error),
          }),
      });
      this.onClose(() => Promise.resolve(searchIndexer.stop()));
    } catch (error) {
      this.store.close();
      throw error;
    }
  }

  /**
   * Loads the audit key (creating it on first use) and the recorded head, so appends are keyed from here on.
   * `openServices` calls it before anything can append; once.
   */
  async openAuditChain(): Promise<void> {
    if (this.#auditChain) return;
    this.#auditChain = await AuditChainGuard.open(this.store, {
      secrets: this.#auditKeys,
      checkKeys: this.#auditCheckKeys,
      logger: this.#log,
    });
  }

  /**
   * `log verify`: the chain checked with the key and against the head recorded outside the database; whole unless
   * `incremental` (only what follows the prefix last found whole: see AuditChainGuard.verify).
   */
  verifyAuditLog(options: { incremental?: boolean } = {}): AuditChainReport {
    if (!this.#auditChain) throw new Error('the audit chain is not open');
    return this.#auditChain.verify(options);
  }

  /**
   * `log verify` of the whole chain a page at a time, with progress and a stop (AuditChainGuard.verifyStreaming):
   * the core keeps serving calls while it runs.
   */
  verifyAuditLogStreaming(options: {
    signal?: AbortSignal;
    onProgress?: (checked: number, total: number) => void;
  }): Promise<AuditChainReport> {
    if (!this.#auditChain) throw new Error('the audit chain is not open');
    return this.#auditChain.verifyStreaming(options);
  }

  /** Starts sending and tracking for one environment (recovery of interrupted sends comes first, in the outbox). */
  startEnvironment(environmentId: string): void {
    this.registry.get(environmentId);
    this.outbox.start(environmentId);
    this.poller.start(environmentId);
  }

  /** A removed environment's sending and status checks stop (it had nothing unfinished). */
  async stopEnvironment(environmentId: string): Promise<void> {
    await this.poller.stop(environmentId);
    await this.outbox.stopEnvironment(environmentId);
    this.#raised.delete(`${environmentId}:sign-in-required`);
    this.#raised.delete(`${environmentId}:service-unavailable`);
    this.#raised.delete(`${environmentId}:service-unreadable`);
  }

  /** Every environment that has a client id. */
  startConfiguredEnvironments(): void {
    for (const environment of this.registry.configured()) this.startEnvironment(environment.id);
  }

  /** Cancel requests (offline-safe); the outbox is woken for the cancel commands this queued. */
  cancelOrders(orderIds: readonly number[], reason: string): CancelResult[] {
    const results = requestCancel(this.store, orderIds, reason);
    const touched = results.filter((result) => result.outcome !== 'refused').map((result) => result.orderId);
    for (const environmentId of this.ordersChangedById(touched)) this.outbox.notify(environmentId);
    return results;
  }

  /**
   * "Retry now" of the app's call and the CLI's `retry` (Outbox.retryNow: the state rules and the audit entry);
   * returns how many orders it made due. Held or rejected orders went back to the queue: said at once, with fresh
   * counts, so a list of the orders that need a person drops them now and, counts having moved, reads again when
   * the service refuses one anew (the outbox's own reports come at most every 250 ms and may never show the count
   * between).
   */
  retryNow(orderIds: readonly number[]): number {
    const count = this.outbox.retryNow([...orderIds]);
    this.ordersChangedById(orderIds);
    return count;
  }

  /** ordersChanged for orders known by id only, once per environment they belong to; those environments. */
  ordersChangedById(orderIds: readonly number[]): string[] {
    const byEnvironment = new Map<string, number[]>();
    for (const orderId of new Set(orderIds)) {
      const order = this.store.orders.get(orderId);
      if (order) byEnvironment.set(order.environmentId, [...(byEnvironment.get(order.environmentId) ?? []), orderId]);
    }
    for (const [environmentId, ids] of byEnvironment) this.ordersChanged(environmentId, ids);
    return [...byEnvironment.keys()];
  }

  /**
   * Orders changed outside the outbox's own sending (the status poller confirming a cancel, a refresh, a cancel
   * request): says which, and, since the outbox reports counts only as it sends, fresh counts as well, so every
   * count on screen follows the store at once (issue #13). One count per environment per turn of the event loop.
   */
  ordersChanged(environmentId: string, orderIds: number[]): void {
    this.#emit('orders.changed', { environmentId, orderIds });
    if (this.#countsDue.has(environmentId)) return;
    this.#countsDue.add(environmentId);
    queueMicrotask(() => {
      this.#countsDue.delete(environmentId);
      if (this.#closed) return;
      try {
        this.#emit('outbox.progress', toProgressView(this.outbox.progress(environmentId)));
      } catch (error) {
        this.#log.error('could not count orders after a change', {
          environmentId,
          error: error instanceof Error ? error.message.slice(0, 200) : 'unknown',
        });
      }
    });
  }

  /**
   * An order's lookups now need a person, found by the poller or by the detail view's lookup (refresh-order.ts):
   * flagged as no longer found at the service, or listed there under other ids (which may be a second order made
   * there). One notification per note, as for a rejection.
   */
  serviceNoted(orderId: number): void {
    const order = this.store.orders.get(orderId);
    if (!order) return;
    const lost = lostAtServiceReason(order);
    if (lost) return this.#attention(orderAttention(order, 'not-found', lost));
    const listed = listedDifferentlyNote(order);
    if (listed) this.#attention(orderAttention(order, 'listed-differently', listed));
  }

  /** Runs `stop` when the services close, before the store does (it should end the caller's work on the store). */
  onClose(stop: () => Promise<void>): void {
    this.#beforeClose.push(stop);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.signin.close();
    try {
      await Promise.allSettled(this.#beforeClose.map((stop) => stop()));
      await this.poller.close();
      await this.outbox.stop();
    } finally {
      // The last head is recorded before the store closes.
      await this.#auditChain?.close().catch(() => undefined);
      this.store.close();
    }
  }

  #paceChanged(environmentId: string): void {
    if (this.#closed) return;
    try {
      this.outbox.applyPace(environmentId);
      this.poller.applyPace(environmentId);
    } catch (error) {
      // The profile is stored (and validated); the running pace stays as it was until the next start.
      this.#log.error('could not apply the new pace', {
        environmentId,
        error: error instanceof Error ? error.message.slice(0, 200) : 'unknown',
      });
    }
  }

  #signedIn(environmentId: string): void {
    this.#raised.delete(`${environmentId}:sign-in-required`);
    if (this.#closed || !this.registry.find(environmentId)) return;
    // Whatever waited for the sign-in goes on by itself; an admin's pause stays until the admin ends it.
    this.outbox.signedIn(environmentId);
    this.poller.start(environmentId);
  }

  /** The outbox already paces its progress reports (and reports every state change at once). */
  #progressed(progress: OutboxProgress): void {
    if (progress.state !== 'service-unavailable') this.#raised.delete(`${progress.environmentId}:service-unavailable`);
    this.#emit('outbox.progress', toProgressView(progress));
  }

  #attention(event: AttentionEvent): void {
    this.#raise(toAttentionView(event, this.#now()));
  }

  /** Environment-wide conditions are announced once until they clear; each order's is its own condition. */
  #raise(view: AttentionView): void {
    if (view.orderIds.length === 0) {
      const key = `${view.environmentId}:${view.kind}`;
      if (this.#raised.has(key)) return;
      this.#raised.add(key);
    }
    this.#emit('attention', view);
  }

  #emit<E extends EventName>(event: E, payload: EventPayload<E>): void {
    try {
      this.events.emit(event, payload);
    } catch (error) {
      this.#log.error('event outside the contract', {
        event,
        error: error instanceof Error ? error.message.slice(0, 200) : 'unknown',
      });
    }
  }
}
