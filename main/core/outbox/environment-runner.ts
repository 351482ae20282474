import type { Logger } from '../platform/logger.js';
import type { OrderServiceClient } from '../service/client.js';
import type { Store } from '../store/store.js';
import { requeueHeld } from './access-refusal.js';
import type { AttentionEvent } from './attention.js';
import { CommitPipeline } from './commit-pipeline.js';
import type { OutboxProgress, OutboxRunResult } from './progress.js';
import { ProgressReporter } from './progress-reporter.js';
import { burstFor, TokenBucket } from './rate-limiter.js';
import { recoverInterrupted, recoverUnclear } from './recovery.js';
import { ServiceHealth } from './service-health.js';
import { reasonOf, type Answer, type Recorded, type Settle, type StepContext, type Verdict } from './step.js';
import type { OutboxTuning } from './tuning.js';
import { afterBug, networkPart, type Work } from './work.js';

export interface RunnerDeps {
  environmentId: string;
  store: Store;
  client: OrderServiceClient;
  tuning: OutboxTuning;
  now: () => Date;
  random: () => number;
  logger: Logger;
  onProgress?: (progress: OutboxProgress) => void;
  onAttention?: (event: AttentionEvent) => void;
}

interface IdleWaiter {
  stopWhenBlocked: boolean;
  settle(result: OutboxRunResult): void;
}

/** A step whose network part has ended: its bookkeeping waits for the next commit. */
interface Answered {
  work: Work;
  settle: Settle | null;
  error?: unknown;
}

/** Lookups and cancel commands are looked for at least this often while creates keep the loop busy. */
const SCAN_INTERVAL_MS = 250;
/**
 * After the stop aborts what is in flight, the steps end at once (their calls end `cancelled`) and record what they
 * must; a step held up elsewhere (a token refresh) is not waited for longer than this, and its answer is then not
 * recorded (its order stays `sending`, in doubt at the next start).
 */
const ABANDON_WAIT_MS = 2_000;

/**
 * The sending loop of one environment. Work comes from the store, never from memory: lookups of orders in
 * doubt first (they must be settled before anything is resent), then cancel commands, then due queued orders,
 * claimed (queued → sending) ahead into a small pool, from which a freed slot is refilled at once.
 *
 * Group commit. The answers' records (the attempt and the state change it led to, with one audit entry) wait for
 * the next turn of the loop, which commits them all, with the claims that refill the pool, in one transaction:
 * at once when the pool runs dry, after the next I/O poll when it is half empty or a round of answers (one per
 * request slot) waits, else a few milliseconds after the first. Those commits do not wait for the disk (GroupCommit: one background fsync
 * of the WAL covers many), and a claimed create leaves only once the commit that claimed it is durable, so a claim
 * is always on disk before its request leaves. An answer a crash keeps from its commit (or a power loss from its
 * fsync) leaves its order `sending`, which the next start treats as in doubt. Claimed orders that cannot go
 * (paused, sign-in, outage, stop) go back to `queued`.
 *
 * The loop is woken by answers, `notify()`, finished fsyncs, and one timer set to the earliest of: Retry-After
 * gate, breaker probe, next due retry (a rate-limit wait only delays sending).
 *
 * This class is the orchestration (start, stop, pause; the pool, the launch, the turn). Three jobs live apart and
 * are reached only from here: CommitPipeline (when a turn commits, the background fsync, the idle checkpoint),
 * ServiceHealth (what the answers say about the service) and ProgressReporter (what the outside hears).
 */
export class EnvironmentRunner {
  readonly environmentId: string;
  readonly #deps: RunnerDeps;
  readonly #ctx: StepContext;
  readonly #bucket: TokenBucket;
  /** What the answers say about the service: breaker, Retry-After gate, sign-in stop, events to audit. */
  readonly #health: ServiceHealth;
  /** What the outside hears: state, rates, slow requests, progress events. */
  readonly #progress: ProgressReporter;
  /** When turns commit and when their commits are on disk (group commit, background fsync, idle checkpoint). */
  readonly #commits: CommitPipeline;
  /** Requests out on the network, by order id: what the concurrency limit counts. */
  readonly #inFlight = new Map<number, Promise<void>>();
  /** Aborted by stop(): what is still in flight then is abandoned (see StepContext.signal). */
  #abort = new AbortController();
  /** stop() has recorded its last answers: nothing may touch the store from here on (it is about to close). */
  #stopped = false;
  readonly #answered: Answered[] = [];
  /** Work picked ahead, in order; creates among it are claimed (`sending`) and not yet sent. */
  #pool: Work[] = [];
  /** Recomputed when the pace changes (see retune). */
  #poolTarget: number;
  readonly #waiters = new Set<IdleWaiter>();
  #running = false;
  #pausedReason: string | null = null;
  /** Look for due lookups and cancel commands: set by anything that may have made one due; else every 250 ms. */
  #scanWanted = true;
  #nextScanAt = 0;
  #timer: NodeJS.Timeout | undefined;
  #timerAt = Number.POSITIVE_INFINITY;
  /** Set while sending waits for a rate token. */
  #launchTimer: NodeJS.Timeout | undefined;
  #pumpQueued = false;

  constructor(deps: RunnerDeps) {
    this.environmentId = deps.environmentId;
    // Its own copy of the tuning: retune() changes the pace in it, and the steps read it through #ctx.
    this.#deps = { ...deps, tuning: { ...deps.tuning } };
    // The admin's pause survives a restart; a sign-in stop is found out again by the first request.
    this.#pausedReason = deps.store.environments.pausedReason(deps.environmentId);
    const { tuning } = this.#deps;
    this.#commits = new CommitPipeline({
      store: deps.store,
      environmentId: deps.environmentId,
      tuning,
      logger: deps.logger,
      loop: {
        pool: () => this.#pool,
        poolTarget: () => this.#poolTarget,
        answeredCount: () => this.#answered.length,
        idle: () =>
          this.#running && this.#inFlight.size === 0 && this.#pool.length === 0 && this.#answered.length === 0,
        pump: () => this.#pump(),
        schedulePump: () => this.#schedulePump(),
        synced: () => {
          this.#launchFromPool();
          this.#afterPump();
        },
        syncFailed: () => {
          // Claims that fsync was to cover are never trusted: back to `queued`, unsent.
          if (!this.#stopped) this.#pool = this.#commits.dropUnsynced(this.#pool);
          this.#schedulePump();
        },
      },
    });
    this.#bucket = new TokenBucket(
      tuning.ratePerSecond,
      burstFor(tuning.concurrency, tuning.ratePerSecond),
      this.#nowMs(),
    );
    this.#poolTarget = poolTargetFor(tuning);
    this.#health = new ServiceHealth({
      environmentId: deps.environmentId,
      tuning,
      random: deps.random,
      logger: deps.logger,
    });
    this.#progress = new ProgressReporter({
      environmentId: deps.environmentId,
      store: deps.store,
      tuning,
      now: deps.now,
      logger: deps.logger,
      ...(deps.onProgress ? { onProgress: deps.onProgress } : {}),
      health: this.#health,
      loop: {
        running: () => this.#running,
        pausedReason: () => this.#pausedReason,
        inFlight: () => this.#inFlight.size,
      },
    });
    this.#ctx = {
      environmentId: deps.environmentId,
      store: deps.store,
      client: deps.client,
      tuning: this.#deps.tuning,
      now: deps.now,
      random: deps.random,
      logger: deps.logger,
      othersAnsweredSince: (orderId, sinceMs) => this.#health.othersAnsweredSince(orderId, sinceMs, this.#nowMs()),
      forbiddenByEnvironment: (orderId) => this.#health.forbiddenByEnvironment(orderId),
      signal: this.#abort.signal,
      recoveredAtMs: null,
    };
  }

  get running(): boolean {
    return this.#running;
  }

  /** Recovers orders a stopped process left in `sending` (→ in doubt), then starts sending. */
  start(): void {
    if (this.#running) {
      this.notify();
      return;
    }
    this.#running = true;
    if (this.#stopped) {
      // Started again after a stop (tests; the app makes a new outbox): a fresh signal for the new requests.
      this.#stopped = false;
      this.#abort = new AbortController();
      this.#ctx.signal = this.#abort.signal;
    }
    const lookUpAt = new Date(this.#nowMs() + this.#deps.tuning.reconcileDelayMs);
    const recovered = recoverInterrupted(this.#deps.store, this.environmentId, lookUpAt);
    if (recovered > 0) {
      this.#ctx.recoveredAtMs = this.#nowMs();
      this.#deps.logger.warn('orders interrupted while sending are in doubt until looked up', {
        environmentId: this.environmentId,
        count: recovered,
      });
    }
    const unclear = recoverUnclear(this.#deps.store, this.environmentId, lookUpAt);
    if (unclear > 0) {
      this.#deps.logger.warn('orders queued after a 5xx are in doubt until looked up', {
        environmentId: this.environmentId,
        count: unclear,
      });
    }
    this.notify();
  }

  /**
   * Adopts a new pace at once (the admin saved one): the concurrency limit and the token bucket change for the
   * next request. Requests in flight finish; claimed orders in the pool stay claimed and go at the new pace, so
   * nothing is claimed twice or dropped. A lower concurrency only stops new requests until fewer are in flight.
   */
  retune(pace: Pick<OutboxTuning, 'concurrency' | 'ratePerSecond'>): void {
    const concurrency = Math.floor(pace.concurrency);
    if (!(concurrency > 0) || !(pace.ratePerSecond > 0)) {
      throw new RangeError('outbox pace needs a positive concurrency and rate');
    }
    const tuning = this.#deps.tuning;
    if (tuning.concurrency === concurrency && tuning.ratePerSecond === pace.ratePerSecond) return;
    tuning.concurrency = concurrency;
    tuning.ratePerSecond = pace.ratePerSecond;
    this.#bucket.retune(pace.ratePerSecond, burstFor(concurrency, pace.ratePerSecond), this.#nowMs());
    this.#poolTarget = poolTargetFor(tuning);
    this.#deps.logger.info('outbox pace changed', {
      environmentId: this.environmentId,
      concurrency,
      ratePerSecond: pace.ratePerSecond,
    });
    // A wait for a token was worked out at the old rate: work it out again, and top the pool up to its new size.
    clearTimeout(this.#launchTimer);
    this.#launchTimer = undefined;
    this.#launchFromPool();
    this.#schedulePump();
  }

  notify(): void {
    this.#scanWanted = true;
    this.#schedulePump();
  }

  #schedulePump(): void {
    if (!this.#running || this.#pumpQueued) return;
    this.#pumpQueued = true;
    setImmediate(() => {
      this.#pumpQueued = false;
      this.#pump();
    });
  }

  /** A pump on the next turn even when not running: it commits pending environment events and settles waiters. */
  #pumpSoon(): void {
    if (this.#pumpQueued) return;
    this.#pumpQueued = true;
    setImmediate(() => {
      this.#pumpQueued = false;
      this.#pump();
    });
  }

  /** The admin's pause is stored (with its audit entry), so a restart stays paused until resume(). */
  pause(reason: string): void {
    const stored = reason.trim() === '' ? 'paused by the admin' : reason;
    const { store } = this.#deps;
    store.inTransaction(() => {
      store.environments.setPaused(this.environmentId, stored);
      if (this.#pausedReason === null) {
        store.audit.append({ actor: 'user', action: 'outbox.paused', environmentId: this.environmentId });
      }
    });
    this.#pausedReason = stored;
    this.#schedulePump();
    this.#afterPump();
  }

  /** Clears a pause and a sign-in stop; an open breaker probes at once instead of waiting out its cooldown. */
  resume(): void {
    const wasStopped = this.#pausedReason !== null || this.#health.signInMessage !== null;
    const { store } = this.#deps;
    store.inTransaction(() => {
      if (this.#pausedReason !== null) store.environments.setPaused(this.environmentId, null);
      if (wasStopped)
        store.audit.append({ actor: 'user', action: 'outbox.resumed', environmentId: this.environmentId });
    });
    this.#pausedReason = null;
    this.#health.clearSignIn();
    this.#health.breaker.expedite(this.#nowMs());
    this.notify();
    this.#afterPump();
  }

  /**
   * A sign-in succeeded: ends the wait for it, as resume() does, but leaves an admin's pause in place (a pause is
   * the admin's to end: e.g. after a re-point, queued orders wait for a person, not for whoever signed in).
   */
  signedIn(): void {
    if (this.#pausedReason !== null) {
      this.#health.clearSignIn();
      this.#afterPump();
      return;
    }
    this.resume();
  }

  untilIdle(options: { signal?: AbortSignal; stopWhenBlocked?: boolean }): Promise<OutboxRunResult> {
    return new Promise((resolve, reject) => {
      const { signal } = options;
      const abortError = () =>
        signal?.reason instanceof Error ? signal.reason : new Error('waiting for the outbox was aborted');
      if (signal?.aborted) {
        reject(abortError());
        return;
      }
      const onAbort = () => {
        this.#waiters.delete(waiter);
        reject(abortError());
      };
      const waiter: IdleWaiter = {
        stopWhenBlocked: options.stopWhenBlocked ?? false,
        settle: (result) => {
          signal?.removeEventListener('abort', onAbort);
          this.#waiters.delete(waiter);
          resolve(result);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiters.add(waiter);
      this.notify();
      this.#afterPump();
    });
  }

  progress(): OutboxProgress {
    return this.#progress.progress();
  }

  /**
   * Stops claiming work, gives requests in flight `graceMs` to be answered, then abandons the rest (aborts them):
   * a create or cancel that may have arrived is recorded as in doubt, one that never left goes back unsent. Every
   * record is committed and synced before this resolves, and nothing is written after: the store can close.
   */
  async stop(graceMs: number): Promise<void> {
    this.#running = false;
    this.#progress.stopWatchingSlow();
    clearTimeout(this.#timer);
    clearTimeout(this.#launchTimer);
    this.#launchTimer = undefined;
    this.#commits.cancelTimers();
    this.#timer = undefined;
    this.#timerAt = Number.POSITIVE_INFINITY;
    await this.#settledWithin(graceMs);
    if (this.#inFlight.size > 0) {
      this.#deps.logger.info('outbox stopping: requests still in flight are abandoned (looked up before resending)', {
        environmentId: this.environmentId,
        count: this.#inFlight.size,
      });
      this.#abort.abort();
      await this.#settledWithin(ABANDON_WAIT_MS);
    }
    // Record what was answered and put back what was claimed and not sent; then make all of it durable.
    this.#pump();
    try {
      this.#commits.close();
    } catch (error) {
      this.#deps.logger.error('outbox could not sync its last records', {
        environmentId: this.environmentId,
        reason: reasonOf(error),
      });
    }
    this.#progress.cancelReport();
    const result = { ...this.progress(), outcome: 'stopped' as const };
    this.#stopped = true;
    for (const waiter of [...this.#waiters]) waiter.settle(result);
  }

  /** Waits until nothing is in flight, or `ms` at most. */
  async #settledWithin(ms: number): Promise<void> {
    if (this.#inFlight.size === 0) return;
    let timeout: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.#inFlight.values()]),
      new Promise((resolve) => (timeout = setTimeout(resolve, ms))),
    ]);
    clearTimeout(timeout);
  }

  /**
   * One turn of the loop, in one transaction: record every answer that came in, then refill the pool (claims
   * included). Requests go out after the commit, so every claim is durable before its request leaves.
   */
  #pump(): void {
    this.#commits.turnStarted();
    const answered = this.#answered.splice(0);
    if (!this.#running && answered.length === 0 && this.#pool.length === 0 && !this.#health.hasEvents) return;
    const attention: AttentionEvent[] = [];
    const poolBefore = [...this.#pool];
    const envEvents = this.#health.takeEvents();
    const requeue = this.#health.takeRequeue();
    try {
      const { value: claimed, commit } = this.#commits.commit(() => {
        for (const event of envEvents) {
          this.#deps.store.audit.append({
            actor: 'submitter',
            action: event.action,
            environmentId: this.environmentId,
            ...(event.details ? { details: event.details } : {}),
          });
          if (event.attention) attention.push(event.attention);
        }
        requeueHeld(this.#ctx, requeue);
        for (const item of answered) this.#settle(item, attention);
        if (this.#running && !this.#blocked()) return this.#refill();
        this.#releasePool();
        return [];
      });
      for (const work of claimed) work.commit = commit;
      this.#commits.syncAhead();
    } catch (error) {
      // The commit failed (disk full, I/O error), so none of it happened: record each answer on its own.
      // The breaker and gates took the answers in when they arrived; only environment audit entries are lost.
      this.#deps.logger.error('outbox commit failed', { environmentId: this.environmentId, reason: reasonOf(error) });
      // The pool as it was: its claims were committed earlier; this turn's claims were rolled back.
      this.#pool = poolBefore;
      attention.length = 0;
      for (const event of envEvents) if (event.attention) attention.push(event.attention);
      try {
        this.#deps.store.inTransaction(() => requeueHeld(this.#ctx, requeue));
      } catch (second) {
        // They stay held, with the 403 they were held for: "Retry now" sends them again.
        this.#deps.logger.error('outbox could not put held orders back', {
          environmentId: this.environmentId,
          count: requeue.length,
          reason: reasonOf(second),
        });
      }
      for (const item of answered) {
        try {
          this.#deps.store.inTransaction(() => this.#settle(item, attention));
        } catch (second) {
          this.#deps.logger.error('outbox could not record an answer', {
            environmentId: this.environmentId,
            orderId: item.work.id,
            reason: reasonOf(second),
          });
        }
      }
      this.#wakeAt(this.#nowMs() + Math.max(1000, this.#deps.tuning.baseDelayMs));
    }
    for (const event of attention) this.#emitAttention(event);
    this.#launchFromPool();
    if (this.#inFlight.size === 0 && this.#pool.length === 0 && this.#answered.length === 0) {
      this.#commits.checkpointWhenIdle();
    }
    this.#afterPump();
  }

  /** Records one answer, in its own savepoint: a failure there cannot undo the others. */
  #settle(item: Answered, attention: AttentionEvent[]): void {
    let recorded: Recorded;
    if (item.settle) {
      try {
        recorded = this.#deps.store.inTransaction(item.settle);
      } catch (error) {
        recorded = afterBug(this.#ctx, item.work, error);
      }
    } else {
      recorded = afterBug(this.#ctx, item.work, item.error);
    }
    if (recorded.reached) {
      this.#progress.reached(item.work.kind !== 'cancel' ? item.work.order.batchId : null);
    }
    // Whatever did not end at the service may have left a lookup or a cancel to do; an order created (or found)
    // has left nothing, so a stream of creates does not rescan the queue every turn.
    else this.#scanWanted = true;
    if (recorded.attention) attention.push(recorded.attention);
  }

  /** Paused by the admin or waiting for sign-in: nothing goes until resume(). */
  #blocked(): boolean {
    return this.#pausedReason !== null || this.#health.signInMessage !== null;
  }

  /**
   * Tops the pool up: due lookups, then cancel commands, then queued orders (claimed here, in this commit).
   * Returns the creates claimed, for the caller to stamp with the commit's number.
   */
  #refill(): Array<Extract<Work, { kind: 'create' }>> {
    const nowMs = this.#nowMs();
    const breaker = this.#health.breaker.state(nowMs);
    if (breaker === 'open') {
      this.#releasePool();
      this.#wakeAt(this.#health.breaker.probeAt ?? nowMs);
      return [];
    }
    // Half-open: exactly one probe, and only once nothing else is in flight.
    const target = breaker === 'closed' ? this.#poolTarget : this.#inFlight.size === 0 ? 1 : 0;
    const wanted = target - this.#pool.length;
    if (wanted <= 0) return [];
    const { store } = this.#deps;
    const picked: Work[] = [];
    if (this.#scanWanted || nowMs >= this.#nextScanAt) {
      this.#scanWanted = false;
      this.#nextScanAt = nowMs + SCAN_INTERVAL_MS;
      const exclude = [
        ...this.#inFlight.keys(),
        ...this.#answered.map((a) => a.work.id),
        ...this.#pool.map((w) => w.id),
      ];
      for (const id of store.outboxQueue.dueInDoubt(this.environmentId, wanted, exclude)) {
        const order = store.orders.get(id);
        if (order) picked.push({ kind: 'lookup', id, order });
      }
      if (picked.length < wanted) {
        for (const command of store.outboxQueue.dueCancels(this.environmentId, wanted - picked.length, exclude)) {
          picked.push({ kind: 'cancel', id: command.orderId, command });
        }
      }
      // A full page means there may be more: look again next turn.
      if (picked.length === wanted) this.#scanWanted = true;
    }
    // Lookups and cancels go before creates already waiting in the pool; new creates after them.
    this.#pool.unshift(...picked);
    const claimed: Array<Extract<Work, { kind: 'create' }>> = [];
    if (picked.length < wanted) {
      for (const order of store.orders.claimForSending(this.environmentId, wanted - picked.length)) {
        // Not durable until stamped with this commit's number (after it) and that commit is synced.
        claimed.push({ kind: 'create', id: order.id, order, commit: Number.POSITIVE_INFINITY });
        this.#progress.claimed(order.batchId, nowMs);
      }
      this.#pool.push(...claimed);
    }
    // Nothing due and nothing under way: the timer wakes the loop when the next retry is due.
    if (this.#pool.length === 0 && this.#inFlight.size === 0) this.#wakeForNextDue(nowMs);
    return claimed;
  }

  /** Claimed orders that were not sent go back to `queued` (no attempt was made); picked lookups and cancels wait. */
  #releasePool(): void {
    const claimed = this.#pool.filter((work) => work.kind === 'create').map((work) => work.id);
    this.#pool = [];
    if (claimed.length > 0) this.#deps.store.outboxQueue.unclaim(claimed);
  }

  /** Sends from the pool while a slot and a rate token are free; the answers come back to #answered. */
  #launchFromPool(): void {
    if (!this.#running || this.#blocked() || this.#pool.length === 0) return;
    const nowMs = this.#nowMs();
    const health = this.#health;
    if (health.breaker.state(nowMs) === 'open') return;
    if (nowMs < health.notBefore) {
      this.#wakeAt(health.notBefore);
      return;
    }
    while (
      this.#pool.length > 0 &&
      this.#inFlight.size < health.breaker.allowance(nowMs, this.#deps.tuning.concurrency)
    ) {
      const head = this.#pool[0]!;
      // A create leaves only once its claim is durable: the background sync launches it when it is.
      if (head.kind === 'create' && !this.#commits.isDurable(head.commit)) {
        this.#commits.syncInBackground();
        return;
      }
      if (!this.#bucket.tryTake(nowMs)) {
        this.#launchLater(this.#bucket.waitMs(nowMs));
        return;
      }
      const work = this.#pool.shift()!;
      health.breaker.probeStarted(nowMs);
      this.#launch(work);
    }
  }

  /** A rate token comes in `delayMs`: only sending waits for it, not the loop's scans and commits. */
  #launchLater(delayMs: number): void {
    if (this.#launchTimer) return;
    this.#launchTimer = setTimeout(() => {
      this.#launchTimer = undefined;
      this.#launchFromPool();
    }, delayMs);
  }

  #wakeForNextDue(nowMs: number): void {
    const next = this.#deps.store.outboxQueue.nextDueAt(this.environmentId, []);
    // "Due now" yet not picked can only be a clock tick apart: look again shortly, never in a tight loop.
    if (next) this.#wakeAt(Math.max(next.getTime(), nowMs + 5));
  }

  #launch(work: Work): void {
    const answered = (answer: Answer | null, error?: unknown) => {
      // The slot is free as soon as the answer is in, and what it says about the service counts at once (so
      // the pool stops feeding an outage); its record waits for the next commit.
      this.#inFlight.delete(work.id);
      this.#progress.requestEnded(work.id);
      if (this.#stopped) {
        // Past the stop's last commit: the store may be closed. Left `sending`, the order is in doubt at next start.
        this.#deps.logger.warn('an answer came after the outbox stopped: not recorded', {
          environmentId: this.environmentId,
          orderId: work.id,
          operation: work.kind,
        });
        return;
      }
      this.#judge(work, answer?.verdict ?? { service: 'none' });
      this.#answered.push({ work, settle: answer?.settle ?? null, ...(error === undefined ? {} : { error }) });
      if (!this.#running) {
        // Stopped: record it at once (the store may be closed soon).
        this.#pump();
        return;
      }
      this.#launchFromPool();
      this.#commits.scheduleCommit();
    };
    const task = networkPart(this.#ctx, work).then(
      (answer) => answered(answer),
      (error: unknown) => answered(null, error ?? new Error('the step failed')),
    );
    this.#inFlight.set(work.id, task);
    this.#progress.requestSent(work.id);
  }

  /** Takes in what an answer says about the service (ServiceHealth); a stop it brings is committed at once. */
  #judge(work: Work, verdict: Verdict): void {
    const nowMs = this.#nowMs();
    const wasBlocked = this.#blocked() || this.#health.breaker.state(nowMs) === 'open';
    this.#health.takeIn(work, verdict, nowMs);
    // Just stopped: commit now, so the claimed pool goes back to the queue instead of waiting.
    if (!wasBlocked && (this.#blocked() || this.#health.breaker.state(nowMs) === 'open')) this.#schedulePump();
  }

  #emitAttention(event: AttentionEvent): void {
    try {
      this.#deps.onAttention?.(event);
    } catch (error) {
      this.#deps.logger.error('attention listener failed', { reason: reasonOf(error) });
    }
  }

  /** Settles waiters that are done and reports progress: at once on a state change, else at most every 250 ms. */
  #afterPump(): void {
    // After the stop (a background fsync finishing late): the store is not ours any more.
    if (this.#stopped) return;
    if (this.#waiters.size === 0 && !this.#progress.wanted) return;
    let open: boolean;
    try {
      open = this.#inFlight.size > 0 || this.#answered.length > 0 || this.#progress.hasOpenWork();
    } catch (error) {
      this.#deps.logger.error('outbox progress failed', { reason: reasonOf(error) });
      return;
    }
    const state = this.#progress.state(open);
    const blocked = state === 'paused' || state === 'sign-in-required' || state === 'service-unavailable';
    let settle = [...this.#waiters].filter((w) => (!open && this.#running) || (blocked && w.stopWhenBlocked));
    // A waiter hears "idle" or "blocked" only once the audit entries and attention events of that state are out
    // (the next pump commits and emits them; until then a sync finishing first must not settle it)...
    if (settle.length > 0 && this.#health.hasEvents) {
      this.#pumpSoon();
      settle = [];
    }
    // ...and once what it would then rely on is on disk.
    if (settle.length > 0 && !this.#commits.allDurable()) {
      this.#commits.syncInBackground();
      settle = [];
    }
    if (settle.length > 0) {
      const progress = this.progress();
      for (const waiter of settle) waiter.settle({ ...progress, outcome: open ? 'blocked' : 'idle' });
    }
    this.#progress.afterTurn(state);
  }

  #wakeAt(atMs: number): void {
    if (!this.#running || atMs >= this.#timerAt) return;
    clearTimeout(this.#timer);
    this.#timerAt = atMs;
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined;
        this.#timerAt = Number.POSITIVE_INFINITY;
        this.#scanWanted = true;
        this.#pump();
      },
      Math.max(0, atMs - this.#nowMs()),
    );
  }

  #nowMs(): number {
    return this.#deps.now().getTime();
  }
}

/**
 * Work picked ahead: enough for ~50 ms at the rate limit, at most sixteen slots' worth (claims are synced to disk
 * in the background before they go, and the pool must outlast an fsync on a busy disk), at least one each.
 */
function poolTargetFor(tuning: Pick<OutboxTuning, 'concurrency' | 'ratePerSecond'>): number {
  return Math.min(16 * tuning.concurrency, Math.max(tuning.concurrency, Math.ceil(tuning.ratePerSecond / 20)));
}
