import type { Logger } from '../platform/logger.js';
import type { Store } from '../store/store.js';
import { isoTime } from '../store/time.js';
import { BatchProgressTracker } from './batch-progress.js';
import type { OutboxProgress, OutboxState } from './progress.js';
import type { ServiceHealth } from './service-health.js';
import { SlidingRate } from './sliding-rate.js';
import { reasonOf } from './step.js';
import type { OutboxTuning } from './tuning.js';

/** Progress events at most this often (plus one at once on every state change). */
const PROGRESS_INTERVAL_MS = 250;
/** A request in flight longer than this is waiting on a slow service: progress says so. */
export const SLOW_REQUEST_MS = 5_000;
/** While requests are that slow, progress is reported this often (their wait grows). */
const SLOW_REPORT_MS = 1_000;

/** What the reporter reads of the sending loop. */
export interface ReportedLoop {
  running(): boolean;
  /** The admin's pause (null when not paused). */
  pausedReason(): string | null;
  /** Requests out on the network now. */
  inFlight(): number;
}

/**
 * What the outside hears about one environment's sending: its state and message, the rates (all orders and per
 * batch), when the next attempt is due, the requests waiting on a slow service, and the progress events (at most
 * every 250 ms, at once on a state change, every second while a request is slow). Apart from the loop
 * (EnvironmentRunner) because none of it decides what is sent: it only reads the loop, the service's health and
 * the store.
 */
export class ProgressReporter {
  readonly #environmentId: string;
  readonly #store: Store;
  /** The runner's own tuning object (its pace changes in place): the slots a slow request holds. */
  readonly #tuning: OutboxTuning;
  readonly #now: () => Date;
  readonly #logger: Logger;
  readonly #onProgress: ((progress: OutboxProgress) => void) | undefined;
  readonly #health: ServiceHealth;
  readonly #loop: ReportedLoop;
  readonly #rate = new SlidingRate();
  readonly #batches: BatchProgressTracker;
  /** When each request in flight left (performance.now()), by order id, for the slow-service report. */
  readonly #sentAt = new Map<number, number>();
  #slowTimer: NodeJS.Timeout | undefined;
  /** The last progress report showed requests waiting on a slow service. */
  #reportedSlow = false;
  #lastState: OutboxState | null = null;
  #lastProgressAt = Number.NEGATIVE_INFINITY;
  #progressTimer: NodeJS.Timeout | undefined;
  /** A report set for when batch counts held back by their read's cost may be read again. */
  #countsTimer: NodeJS.Timeout | undefined;
  /** The store is about to close: nothing more is set for later. */
  #closing = false;

  constructor(deps: {
    environmentId: string;
    store: Store;
    tuning: OutboxTuning;
    now: () => Date;
    logger: Logger;
    onProgress?: (progress: OutboxProgress) => void;
    health: ServiceHealth;
    loop: ReportedLoop;
    /** What a read of batch counts costs is measured with this (performance.now()). */
    clockMs?: () => number;
  }) {
    this.#environmentId = deps.environmentId;
    this.#store = deps.store;
    this.#tuning = deps.tuning;
    this.#now = deps.now;
    this.#logger = deps.logger;
    this.#onProgress = deps.onProgress;
    this.#health = deps.health;
    this.#loop = deps.loop;
    this.#batches = new BatchProgressTracker(deps.clockMs);
  }

  /** Someone listens for progress events. */
  get wanted(): boolean {
    return this.#onProgress !== undefined;
  }

  progress(): OutboxProgress {
    const store = this.#store;
    const counts = store.orders.countByState(this.#environmentId);
    const work = store.outboxQueue.openWork(this.#environmentId);
    const open = work.queued + work.sending + work.inDoubt + work.cancels > 0;
    const state = this.state(open);
    const nowMs = this.#nowMs();
    // Counts read afresh whenever nothing is sending (rare reports); while sending, at most every second.
    const batches = this.#batches.report(store, this.#environmentId, nowMs, state !== 'sending');
    if (batches.refreshInMs !== null) this.#reportCountsIn(batches.refreshInMs);
    return {
      environmentId: this.#environmentId,
      state,
      message: this.#messageFor(state),
      needsSettings: state === 'service-unavailable' && this.#health.outageNeedsSettings,
      accessRefused: state === 'service-unavailable' && this.#health.outageAccessRefused,
      counts,
      notedOutsideAttention: store.orders.countNotedOutsideAttention(this.#environmentId),
      openCancels: work.cancels,
      inFlight: this.#loop.inFlight(),
      ordersPerSecond: this.#rate.perSecond(nowMs),
      nextAttemptAt: this.#nextAttemptAt(state, nowMs),
      slow: this.#slowRequests(performance.now()),
      batches: batches.batches,
    };
  }

  /** Whether the store holds work still to send, look up or cancel. */
  hasOpenWork(): boolean {
    const work = this.#store.outboxQueue.openWork(this.#environmentId);
    return work.queued + work.sending + work.inDoubt + work.cancels > 0;
  }

  state(open: boolean): OutboxState {
    if (this.#loop.pausedReason() !== null) return 'paused';
    if (this.#health.signInMessage !== null) return 'sign-in-required';
    if (this.#health.breaker.state(this.#nowMs()) !== 'closed') return 'service-unavailable';
    if (!open) return 'idle';
    return this.#loop.running() ? 'sending' : 'paused';
  }

  /** After a turn of the loop: reports at once if the state changed, else at most every 250 ms. */
  afterTurn(state: OutboxState): void {
    if (this.wanted) this.#report(state !== this.#lastState);
    this.#lastState = state;
  }

  /** A claimed order's batch is being sent from. */
  claimed(batchId: number, nowMs: number): void {
    this.#batches.active(batchId, nowMs);
  }

  /** An order reached the service (created or found); `batchId` null for a cancel. */
  reached(batchId: number | null): void {
    this.#rate.record(this.#nowMs());
    if (batchId !== null) this.#batches.reached(batchId, this.#nowMs());
  }

  /** A request left: it is watched for turning slow. */
  requestSent(orderId: number): void {
    this.#sentAt.set(orderId, performance.now());
    this.#watchSlow();
  }

  requestEnded(orderId: number): void {
    this.#sentAt.delete(orderId);
  }

  /** The loop stops: the slow-request watch ends. */
  stopWatchingSlow(): void {
    clearTimeout(this.#slowTimer);
    this.#slowTimer = undefined;
  }

  /** No report is left set for later (the store is about to close). */
  cancelReport(): void {
    this.#closing = true;
    clearTimeout(this.#progressTimer);
    this.#progressTimer = undefined;
    clearTimeout(this.#countsTimer);
    this.#countsTimer = undefined;
  }

  /**
   * A report handed out batch counts older than the store (their read is costly and was held back): once they may
   * be read again, one more report, whatever the loop does by then. Without it the last report of a run (sending
   * ends, nothing happens after) could leave a batch at "3 of 4 settled" for good.
   */
  #reportCountsIn(delayMs: number): void {
    if (this.#countsTimer || this.#closing || !this.#onProgress) return;
    this.#countsTimer = setTimeout(() => {
      this.#countsTimer = undefined;
      if (this.#closing) return;
      this.#batches.expire();
      this.#report(true);
    }, delayMs);
    this.#countsTimer.unref();
  }

  /** Requests in flight for longer than SLOW_REQUEST_MS (null when none): the service is slow to answer them. */
  #slowRequests(nowMs: number): OutboxProgress['slow'] {
    let requests = 0;
    let longestMs = 0;
    for (const sentAt of this.#sentAt.values()) {
      const waitedMs = nowMs - sentAt;
      if (waitedMs < SLOW_REQUEST_MS) continue;
      requests += 1;
      longestMs = Math.max(longestMs, waitedMs);
    }
    return requests === 0 ? null : { requests, longestMs: Math.round(longestMs), slots: this.#tuning.concurrency };
  }

  /**
   * Progress is reported when something happens; a request that waits on a slow service is nothing happening, so
   * one timer (for the progress listener only) looks when the oldest request in flight turns slow, and then every
   * second while any is. Set when a request leaves and none is set; never more than one.
   */
  #watchSlow(): void {
    if (this.#slowTimer || !this.#onProgress) return;
    let oldest = Number.POSITIVE_INFINITY;
    for (const sentAt of this.#sentAt.values()) oldest = Math.min(oldest, sentAt);
    if (oldest === Number.POSITIVE_INFINITY) {
      // Nothing in flight: clear a sentence still showing.
      if (this.#reportedSlow) {
        this.#reportedSlow = false;
        this.#report(true);
      }
      return;
    }
    const nowMs = performance.now();
    const slow = this.#slowRequests(nowMs);
    if (slow !== null || this.#reportedSlow) {
      this.#reportedSlow = slow !== null;
      this.#report(true);
    }
    const delayMs = slow !== null ? SLOW_REPORT_MS : Math.max(0, oldest + SLOW_REQUEST_MS - nowMs);
    this.#slowTimer = setTimeout(() => {
      this.#slowTimer = undefined;
      if (this.#loop.running()) this.#watchSlow();
    }, delayMs);
    this.#slowTimer.unref();
  }

  #report(force: boolean): void {
    const nowMs = this.#nowMs();
    const dueAt = this.#lastProgressAt + PROGRESS_INTERVAL_MS;
    if (!force && nowMs < dueAt) {
      if (!this.#loop.running()) return;
      this.#progressTimer ??= setTimeout(() => {
        this.#progressTimer = undefined;
        this.#report(true);
      }, dueAt - nowMs);
      return;
    }
    clearTimeout(this.#progressTimer);
    this.#progressTimer = undefined;
    this.#lastProgressAt = nowMs;
    try {
      this.#onProgress?.(this.progress());
    } catch (error) {
      this.#logger.error('progress listener failed', { reason: reasonOf(error) });
    }
  }

  #messageFor(state: OutboxState): string | null {
    switch (state) {
      case 'paused':
        return this.#loop.pausedReason() ?? 'sending has not been started for this environment';
      case 'sign-in-required':
        return this.#health.signInMessage;
      case 'service-unavailable':
        return this.#health.outageMessage;
      default:
        return null;
    }
  }

  #nextAttemptAt(state: OutboxState, nowMs: number): string | null {
    if (state === 'service-unavailable') {
      const probeAt = this.#health.breaker.probeAt;
      return probeAt === null ? null : isoTime(new Date(Math.max(probeAt, nowMs)));
    }
    if (state !== 'sending' || this.#loop.inFlight() > 0) return null;
    if (this.#health.notBefore > nowMs) return isoTime(new Date(this.#health.notBefore));
    const next = this.#store.outboxQueue.nextDueAt(this.#environmentId, []);
    return next ? isoTime(next) : null;
  }

  #nowMs(): number {
    return this.#now().getTime();
  }
}
