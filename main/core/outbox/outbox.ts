import { RELEASED_TO_LOOK_UP_MESSAGE } from '../../../shared/order-views.js';
import { silentLogger, type Logger } from '../platform/logger.js';
import type { OrderServiceClient } from '../service/client.js';
import { DuplicateOrderError } from '../store/orders-repo.js';
import type { OrderState } from '../store/order-state.js';
import type { Store } from '../store/store.js';
import type { AttentionEvent } from './attention.js';
import { EnvironmentRunner } from './environment-runner.js';
import type { OutboxProgress, OutboxRunResult } from './progress.js';
import { resolveTuning, type OutboxTuning } from './tuning.js';

export interface OutboxDeps {
  store: Store;
  /** The secured Order Service client of an environment (its token source handles refresh). */
  clientFor(environmentId: string): OrderServiceClient;
  /** Default: the store's clock; keep the two the same, since due times are compared in SQL. */
  now?: () => Date;
  random?: () => number;
  logger?: Logger;
  onProgress?(progress: OutboxProgress): void;
  /** Once per condition: an outage, a sign-in stop, an order rejected, held, set aside or refused a cancel. */
  onAttention?(event: AttentionEvent): void;
}

export interface RunUntilIdleOptions {
  signal?: AbortSignal;
  /**
   * Resolve (outcome `blocked`) as soon as the environment cannot make progress without help or time: paused,
   * sign-in required, or service unavailable (breaker open). Without it, an outage is waited out (probing), so
   * a scheduled `submit --until-idle` should pass it.
   */
  stopWhenBlocked?: boolean;
}

/**
 * How long `stop()` gives requests in flight to be answered before it abandons them (aborted; a create or cancel
 * that may have arrived is recorded in doubt, and looked up before anything is sent again). Short: an answer on its
 * way comes in well within it, and a slow service would otherwise keep the store, and its lock, for the whole
 * request timeout.
 */
const STOP_GRACE_MS = 1_000;

/** States `retryNow` makes due now without changing them. */
const RESCHEDULABLE: readonly OrderState[] = ['queued', 'in_doubt', 'cancel_requested'];
/**
 * States `retryNow` releases: a person decided to try again (the CLI's `retry` releases these). Back to `queued`, or
 * to `in_doubt` (looked up first) when a send of the order once went unanswered.
 */
export const REQUEUEABLE: readonly OrderState[] = ['held', 'rejected'];

/** The last error of an order released to be looked up first. */
const RELEASED_TO_LOOK_UP = { kind: 'in-doubt', message: RELEASED_TO_LOOK_UP_MESSAGE } as const;

/**
 * The outbox: sends queued orders, settles orders in doubt, sends cancel commands, per environment, with a
 * concurrency limit, a rate limit, backoff with full jitter, Retry-After and a circuit breaker. The store is the
 * source of truth: a restart (or a crash) resumes where the store says, and an order that may have reached the
 * service is looked up before it is ever sent again, so each order takes effect once.
 */
export class Outbox {
  readonly #deps: OutboxDeps;
  readonly #tuning: Partial<OutboxTuning>;
  readonly #runners = new Map<string, EnvironmentRunner>();

  constructor(deps: OutboxDeps, tuning: Partial<OutboxTuning> = {}) {
    this.#deps = deps;
    this.#tuning = { ...tuning };
  }

  /** Recovers orders a stopped process left `sending` (they become in doubt), then sends. */
  start(environmentId: string): void {
    this.#runner(environmentId).start();
  }

  /** Stops claiming new work for the environment (requests in flight finish). Stored: a restart stays paused. */
  pause(environmentId: string, reason = 'paused by the admin'): void {
    this.#runner(environmentId).pause(reason);
  }

  /** A sign-in succeeded: ends a sign-in stop, not an admin's pause. */
  signedIn(environmentId: string): void {
    this.#runner(environmentId).signedIn();
  }

  /** Ends a pause or a sign-in stop (call it after signing in again); an open breaker probes at once. */
  resume(environmentId: string): void {
    this.#runner(environmentId).resume();
  }

  /**
   * Makes orders due now and returns how many were: queued and in-doubt orders and open cancel commands keep
   * their state with the wait cleared; `held` and `rejected` orders go back to `queued` with their failure count
   * reset (a person decided; a rejected one whose clinic order id was meanwhile re-imported is skipped). Other
   * states are left alone. Each is audited as the user's action.
   */
  retryNow(orderIds: number[]): number {
    const { store } = this.#deps;
    const touched = new Set<string>();
    let count = 0;
    for (const orderId of new Set(orderIds)) {
      const order = store.orders.get(orderId);
      if (!order) continue;
      let moved = false;
      try {
        moved = store.inTransaction(() => {
          if (RESCHEDULABLE.includes(order.state)) {
            return store.orders.transition(
              orderId,
              [order.state],
              order.state,
              { nextAttemptAt: null },
              { actor: 'user', action: 'order.retry-now' },
            );
          }
          if (!REQUEUEABLE.includes(order.state)) return false;
          // A send of it once went unanswered: the service may have it, so it is looked up before it is sent again
          // (queued, a service that does not keep clinic order ids unique would make a second order).
          const lookUpFirst = store.outboxQueue.retryMemory(orderId)?.wasInDoubt === true;
          const done = store.orders.transition(
            orderId,
            [order.state],
            lookUpFirst ? 'in_doubt' : 'queued',
            { nextAttemptAt: null, lastError: lookUpFirst ? RELEASED_TO_LOOK_UP : null },
            { actor: 'user', action: 'order.retry-now' },
          );
          if (done) store.outboxQueue.release(orderId, lookUpFirst ? this.#now() : null);
          return done;
        });
      } catch (error) {
        if (!(error instanceof DuplicateOrderError)) throw error;
      }
      if (moved) {
        count += 1;
        touched.add(order.environmentId);
      }
    }
    for (const environmentId of touched) this.notify(environmentId);
    return count;
  }

  /**
   * The environment's stored pace changed: a runner already working adopts its concurrency and rate at once
   * (explicit tuning given to the outbox still wins, as at start). A runner not made yet reads it when made.
   */
  applyPace(environmentId: string): void {
    const runner = this.#runners.get(environmentId);
    const profile = this.#deps.store.environments.get(environmentId);
    if (!runner || !profile) return;
    runner.retune(resolveTuning(this.#tuning, profile));
  }

  /** New orders were queued (or cancel commands opened): look for work now rather than at the next timer. */
  notify(environmentId: string): void {
    this.#runners.get(environmentId)?.notify();
  }

  /**
   * Starts the environment if needed and resolves when nothing is queued, sending or in doubt and no cancel
   * command is open (outcome `idle`); with `stopWhenBlocked`, also when it is paused, needs sign-in or finds the
   * service unavailable (outcome `blocked`); `stopped` if `stop()` came first. Rejects with the signal's reason
   * when aborted. Orders waiting for a retry time are waited for.
   */
  runUntilIdle(environmentId: string, options: RunUntilIdleOptions = {}): Promise<OutboxRunResult> {
    const runner = this.#runner(environmentId);
    runner.start();
    return runner.untilIdle(options);
  }

  progress(environmentId: string): OutboxProgress {
    return this.#runner(environmentId).progress();
  }

  /**
   * Stops claiming everywhere, gives requests in flight a moment to be answered, abandons the rest (recorded in
   * doubt when they may have arrived), and resolves once every record is committed and synced: nothing of the
   * outbox writes to the store after that, so it may close (and release the data directory's lock).
   */
  async stop(): Promise<void> {
    await Promise.all([...this.#runners.values()].map((runner) => runner.stop(STOP_GRACE_MS)));
  }

  /** The environment was removed (nothing of it unfinished): its runner stops and is forgotten. */
  async stopEnvironment(environmentId: string): Promise<void> {
    const runner = this.#runners.get(environmentId);
    if (!runner) return;
    this.#runners.delete(environmentId);
    await runner.stop(STOP_GRACE_MS);
  }

  #now(): Date {
    return (this.#deps.now ?? this.#deps.store.now)();
  }

  #runner(environmentId: string): EnvironmentRunner {
    let runner = this.#runners.get(environmentId);
    if (runner) return runner;
    const { store } = this.#deps;
    const profile = store.environments.get(environmentId);
    if (!profile) throw new Error(`no environment "${environmentId}" in the store`);
    runner = new EnvironmentRunner({
      environmentId,
      store,
      client: this.#deps.clientFor(environmentId),
      tuning: resolveTuning(this.#tuning, profile),
      now: this.#deps.now ?? store.now,
      random: this.#deps.random ?? Math.random,
      logger: this.#deps.logger ?? silentLogger,
      ...(this.#deps.onProgress ? { onProgress: (p) => this.#deps.onProgress?.(p) } : {}),
      ...(this.#deps.onAttention ? { onAttention: (e) => this.#deps.onAttention?.(e) } : {}),
    });
    this.#runners.set(environmentId, runner);
    return runner;
  }
}
