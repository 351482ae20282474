import {
  enrichmentRunSchema,
  type BatchEnrichment,
  type EnrichmentProgress,
  type EnrichmentRun,
  type LookupFailure,
  type OrderEnrichment,
} from '../../../shared/enrichment-views.js';
import { DEFAULT_REUSE_SECONDS } from '../../../shared/enrichment-contract.js';
import type { StagedItemRow } from '../store/enrichment-repo.js';
import type { Store } from '../store/store.js';
import { byOrder, loadAnswers } from './answer-book.js';
import { planBatch } from './batch-plan.js';
import { countBatch, describeRun } from './batch-summary.js';
import { runLookups, type LookupClients, type LookupTuning } from './lookup-run.js';
import { orderEnrichment, type CancelledCheck } from './order-view.js';

/**
 * Online enrichment of staged batches (issue #4): checks a batch with the Order Service and reads what is known
 * of its orders, from stored answers, offline too. One check per batch at a time (a second request joins it);
 * each can be cancelled; every finished check is stored with its counts and audited (`batch.enriched`, counts
 * only). See README.md.
 */

export interface EnrichmentDeps {
  store: Store;
  /** The environment's pace (shared with nothing else here) and whether it has a client id. */
  environment(environmentId: string): { clientId: string; concurrency: number; ratePerSecond: number };
  /** The environment's clients: anonymous for product search, secured (signed-in) for the rest. */
  clients(environmentId: string): LookupClients;
  /** Whether the environment has a sign-in now (tokens held); no client id means no. */
  signedIn(environmentId: string): Promise<boolean>;
  now?: () => Date;
  onProgress?(progress: EnrichmentProgress): void;
}

export interface EnrichmentTuning extends Omit<LookupTuning, 'concurrency' | 'ratePerSecond'> {
  /** Overrides the environment's concurrency / rate (tests). */
  concurrency?: number;
  ratePerSecond?: number;
  /** Progress events at most this often while a check runs (the first and the last are always sent). */
  progressEveryMs: number;
}

export const DEFAULT_ENRICHMENT_TUNING: EnrichmentTuning = {
  maxRetries: 2,
  retryBaseDelayMs: 500,
  maxRetryWaitMs: 10_000,
  progressEveryMs: 250,
};

/** A request enrichment cannot carry out (no such batch, an order of another batch). */
export class EnrichmentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EnrichmentError';
  }
}

/** By ids, a page in file order, or (`onlyWarnings`) a page of the staged orders that have service warnings. */
export type EnrichmentQuery =
  { stagedOrderIds: readonly number[] } | { offset: number; limit: number; onlyWarnings?: boolean };

interface Running {
  controller: AbortController;
  promise: Promise<EnrichmentRun>;
  progress: EnrichmentProgress;
  /** A refresh of the orders appended since the last check (`refreshAppended`), not a check of the whole batch. */
  appendedOnly: boolean;
}

/** A staged order with service warnings, as the filter lists them (file order). */
interface WarnedOrder {
  stagedOrderId: number;
  position: number;
}

/** Batches whose warned-order lists are kept (the preview filters one batch at a time; a few cost little). */
const WARNED_BATCHES_KEPT = 4;
/** Up to this many orders rewritten since a list was worked out, only they are looked at again. */
const WARNED_PATCH_LIMIT = 500;

/** A batch's warned orders, with what they were worked out from: the staged-order writes and everything else. */
interface KeptWarned {
  writes: number;
  /** The environment, the answers stored, and other connections' commits: when these move, walk again. */
  inputs: string;
  orders: WarnedOrder[];
}

/** Which failure explains a partial check best: the one the admin must act on first. */
const FAILURE_ORDER: readonly LookupFailure[] = ['offline', 'signed-out', 'service-error'];

/** The orders among these rows (grouped by order, in file order) whose views have warnings. */
function warnedAmong(rows: readonly StagedItemRow[], answers: ReturnType<typeof loadAnswers>): WarnedOrder[] {
  const orders: WarnedOrder[] = [];
  for (const order of byOrder(rows)) {
    const view = orderEnrichment(order, answers);
    if (view.warnings.length > 0) orders.push({ stagedOrderId: view.stagedOrderId, position: view.position });
  }
  return orders;
}

export class EnrichmentService {
  readonly #deps: EnrichmentDeps;
  readonly #tuning: EnrichmentTuning;
  readonly #now: () => Date;
  readonly #running = new Map<number, Running>();
  /** Batches that grew while a check of them ran: their appended orders are refreshed once it ends. */
  readonly #grewMeanwhile = new Set<number>();
  /** Per batch: its staged orders with service warnings, and the store version they were worked out at. */
  readonly #warned = new Map<number, KeptWarned>();

  constructor(deps: EnrichmentDeps, tuning: Partial<EnrichmentTuning> = {}) {
    this.#deps = deps;
    this.#tuning = { ...DEFAULT_ENRICHMENT_TUNING, ...tuning };
    this.#now = deps.now ?? (() => new Date());
  }

  /**
   * Checks the batch's staged orders with the service and resolves with the summary (also when cancelled or
   * stopped by being offline or signed out: what could not be checked is said, never guessed). Answers younger
   * than `reuseWithinMs` are used as stored: by default the contract's DEFAULT_REUSE_SECONDS; 0 asks afresh.
   */
  enrich(batchId: number, options: { reuseWithinMs?: number } = {}): Promise<EnrichmentRun> {
    const running = this.#running.get(batchId);
    // A refresh of appended orders covers only those: the whole batch is checked once it ends.
    if (running?.appendedOnly) {
      const after = () => this.enrich(batchId, options);
      return running.promise.then(after, after);
    }
    if (running) return running.promise;
    const batch = this.#deps.store.batches.get(batchId);
    if (!batch) throw new EnrichmentError(`there is no batch ${batchId}`);
    const reuseWithinMs = options.reuseWithinMs ?? DEFAULT_REUSE_SECONDS * 1000;
    return this.#start(batch.environmentId, batchId, reuseWithinMs, undefined);
  }

  /**
   * Checks the orders appended to a checked batch since its last check (live intake appends each message to its
   * sender's batch of the day), and only those: their questions are asked unless the store has an answer at least
   * as new as that check (so a code the check answered is not asked again), and the stored run is brought up to
   * date (counts over the whole batch, from stored answers; calls and reused added). Nothing is asked for a batch
   * never checked, whose last check was cancelled (the admin stopped checking it), that was discarded, or that
   * has no new staged order: then it resolves with the stored run (null when there is none). Called whenever a
   * batch changes (enrichment-handlers.ts); a batch that grows while a check of it runs is refreshed after it.
   */
  refreshAppended(batchId: number): Promise<EnrichmentRun | null> {
    const running = this.#running.get(batchId);
    if (running) {
      this.#grewMeanwhile.add(batchId);
      return running.promise.then(
        (run) => run,
        () => null,
      );
    }
    const { store } = this.#deps;
    const batch = store.batches.get(batchId);
    const stored = store.enrichment.run(batchId);
    const parsed = stored ? enrichmentRunSchema.safeParse(stored.summary) : undefined;
    const last = parsed?.success ? parsed.data : null;
    if (
      !batch ||
      batch.discardedAt !== null ||
      !last ||
      last.environmentId !== batch.environmentId ||
      last.outcome === 'cancelled' ||
      last.checkedThrough === undefined ||
      store.enrichment.lastPosition(batchId) <= last.checkedThrough
    ) {
      return Promise.resolve(last);
    }
    // Answers the last check had (or newer) are reused; at least the usual window's.
    const sinceCheck = this.#now().getTime() - Date.parse(last.startedAt);
    const reuseWithinMs = Math.max(DEFAULT_REUSE_SECONDS * 1000, sinceCheck);
    return this.#start(batch.environmentId, batchId, reuseWithinMs, last);
  }

  #start(
    environmentId: string,
    batchId: number,
    reuseWithinMs: number,
    previous: EnrichmentRun | undefined,
  ): Promise<EnrichmentRun> {
    const check: Omit<Running, 'promise'> = {
      controller: new AbortController(),
      progress: { environmentId, batchId, state: 'running', done: 0, total: 0, calls: 0 },
      appendedOnly: previous !== undefined,
    };
    const promise = this.#run(environmentId, batchId, reuseWithinMs, check, previous).finally(() => {
      this.#running.delete(batchId);
      // Grown while this ran: what it did not plan is refreshed now (never thrown: nobody waits for it).
      if (this.#grewMeanwhile.delete(batchId) && this.#deps.store.isOpen) {
        this.refreshAppended(batchId).catch(() => undefined);
      }
    });
    this.#running.set(batchId, Object.assign(check, { promise }));
    return promise;
  }

  /** Stops the batch's running check (answers that came are kept); false when none runs. */
  cancel(batchId: number): boolean {
    const running = this.#running.get(batchId);
    if (!running) return false;
    running.controller.abort(new Error('cancelled'));
    return true;
  }

  progress(batchId: number): EnrichmentProgress | null {
    return this.#running.get(batchId)?.progress ?? null;
  }

  /**
   * What is known of some orders of the batch, from stored answers only (no service call: works offline). A
   * checked batch that grew meanwhile where no change was told (`rx-batch serve` appended to it while the app was
   * closed) gets its new orders refreshed in the background, as `refreshAppended`: its progress events follow.
   */
  read(batchId: number, query: EnrichmentQuery): BatchEnrichment {
    const { store } = this.#deps;
    const batch = store.batches.get(batchId);
    if (!batch) throw new EnrichmentError(`there is no batch ${batchId}`);
    if (!this.#running.has(batchId)) this.refreshAppended(batchId).catch(() => undefined);
    if ('onlyWarnings' in query && query.onlyWarnings) {
      const found = this.#withWarnings(batch.environmentId, batchId, query.offset, query.limit);
      return { ...this.#runState(batchId), orders: found.orders, total: found.total };
    }
    const ids =
      'stagedOrderIds' in query
        ? [...query.stagedOrderIds]
        : store.enrichment.pageIds(batchId, query.offset, query.limit);
    const rows = store.enrichment.itemsOf(batchId, ids);
    const seen = new Set(rows.map((row) => row.stagedOrderId));
    const missing = ids.find((id) => !seen.has(id));
    if (missing !== undefined) throw new EnrichmentError(`staged order ${missing} is not in batch ${batchId}`);
    const answers = loadAnswers(store.enrichment, batch.environmentId, rows);
    const cancelled = this.#cancelledCheck(batchId, batch.environmentId);
    return {
      ...this.#runState(batchId),
      orders: [...byOrder(rows)].map((order) => orderEnrichment(order, answers, cancelled)),
    };
  }

  /**
   * The batch's last finished check when it was cancelled: what it did not get to reads "cancelled" rather than
   * "never asked". Derived from the stored run, so the next finished check of the batch ends it.
   */
  #cancelledCheck(batchId: number, environmentId: string): CancelledCheck | undefined {
    const run = this.#deps.store.enrichment.run(batchId);
    if (run?.outcome !== 'cancelled' || run.environmentId !== environmentId) return undefined;
    return { startedAt: run.startedAt, finishedAt: run.finishedAt };
  }

  #runState(batchId: number): Pick<BatchEnrichment, 'batchId' | 'run' | 'progress'> {
    const stored = this.#deps.store.enrichment.run(batchId);
    const run = stored ? enrichmentRunSchema.safeParse(stored.summary) : undefined;
    return { batchId, run: run?.success ? run.data : null, progress: this.progress(batchId) };
  }

  /**
   * The preview's "only orders with service warnings" filter: one page of the batch's staged orders (the ones a
   * check covers, so the total matches the run's `ordersWithWarnings` until an edit) whose views have warnings.
   * Which orders those are is worked out once per version of what they depend on (see `#warnedOrders`); a page
   * then builds only its own orders' views, so it costs what the page holds, not the batch.
   */
  #withWarnings(
    environmentId: string,
    batchId: number,
    offset: number,
    limit: number,
  ): { orders: OrderEnrichment[]; total: number } {
    const { store } = this.#deps;
    const warned = this.#warnedOrders(environmentId, batchId);
    const wanted = warned.slice(offset, offset + limit);
    if (wanted.length === 0) return { orders: [], total: warned.length };
    const rows = store.enrichment.itemsOf(
      batchId,
      wanted.map((order) => order.stagedOrderId),
    );
    const answers = loadAnswers(store.enrichment, environmentId, rows);
    const cancelled = this.#cancelledCheck(batchId, environmentId);
    const orders = [...byOrder(rows)].map((order) => orderEnrichment(order, answers, cancelled));
    return { orders, total: warned.length };
  }

  /**
   * The batch's staged orders with service warnings, in file order. Kept per batch with the inputs they came from:
   * answers stored (a check, of this batch or another of the environment sharing codes) or anything another
   * connection committed, and the batch is walked again (0.4–0.5 s for 50,000 orders here); staged orders rewritten
   * through this store (an edit, find and replace, an accept), and only those orders are looked at again, unless
   * there are many. So the list is never older than the store, and an edit costs what it touched.
   */
  #warnedOrders(environmentId: string, batchId: number): WarnedOrder[] {
    const { store } = this.#deps;
    const writes = store.stagedOrders.writes;
    const inputs = [environmentId, store.enrichment.answerWrites, store.enrichment.otherConnectionsVersion()].join(':');
    const kept = this.#warned.get(batchId);
    let orders: WarnedOrder[];
    if (kept?.inputs === inputs && kept.writes === writes) orders = kept.orders;
    else {
      const written = kept?.inputs === inputs ? store.stagedOrders.writtenSince(kept.writes) : undefined;
      orders =
        kept && written && written.length <= WARNED_PATCH_LIMIT
          ? this.#patchWarned(environmentId, batchId, kept.orders, written)
          : this.#walkWarned(environmentId, batchId);
    }
    // Most recently used last, so the eviction below drops the batch read longest ago.
    this.#warned.delete(batchId);
    this.#warned.set(batchId, { writes, inputs, orders });
    while (this.#warned.size > WARNED_BATCHES_KEPT) this.#warned.delete(this.#warned.keys().next().value!);
    return orders;
  }

  #walkWarned(environmentId: string, batchId: number): WarnedOrder[] {
    const { store } = this.#deps;
    // One synchronous pass over the cursor (it must not stay open across an await).
    const rows = [...store.enrichment.stagedItems(batchId)];
    return warnedAmong(rows, loadAnswers(store.enrichment, environmentId, rows));
  }

  /** The kept list with the rewritten orders looked at again: an accepted one leaves, an edited one is judged anew. */
  #patchWarned(environmentId: string, batchId: number, kept: WarnedOrder[], written: number[]): WarnedOrder[] {
    const { store } = this.#deps;
    const rewritten = new Set(written);
    // Orders of other batches give no rows; accepted ones are no longer staged (the filter lists staged orders).
    const rows = store.enrichment.itemsOf(batchId, [...rewritten]).filter((row) => row.acceptedAt === null);
    const again = warnedAmong(rows, loadAnswers(store.enrichment, environmentId, rows));
    if (again.length === 0 && !kept.some((order) => rewritten.has(order.stagedOrderId))) return kept;
    return [...kept.filter((order) => !rewritten.has(order.stagedOrderId)), ...again].sort(
      (a, b) => a.position - b.position,
    );
  }

  /** Cancels every running check and waits for them to stop (the core is closing). */
  async close(): Promise<void> {
    this.#grewMeanwhile.clear();
    const runs = [...this.#running.values()];
    for (const run of runs) run.controller.abort(new Error('closing'));
    await Promise.allSettled(runs.map((run) => run.promise));
  }

  async #run(
    environmentId: string,
    batchId: number,
    reuseWithinMs: number,
    entry: Omit<Running, 'promise'>,
    /** The batch's last check, when this refreshes only the orders appended after it. */
    previous?: EnrichmentRun,
  ): Promise<EnrichmentRun> {
    const { store } = this.#deps;
    // A refresh keeps its check's start: the "cancelled" reading and the reuse above are about that check.
    const startedAt = previous?.startedAt ?? this.#now().toISOString();
    // Read with the plan, in one synchronous pass: an order appended after this is left for the next refresh.
    const checkedThrough = store.enrichment.lastPosition(batchId);
    const plan = planBatch(
      previous?.checkedThrough !== undefined
        ? store.enrichment.stagedItemsAfter(batchId, previous.checkedThrough)
        : store.enrichment.stagedItems(batchId),
    );
    const environment = this.#deps.environment(environmentId);
    const signedIn = environment.clientId !== '' && (await this.#deps.signedIn(environmentId));
    let lastProgressAt = -Infinity;
    const report = (done: number, total: number, calls: number, force = false) => {
      entry.progress = { environmentId, batchId, state: 'running', done, total, calls };
      const now = performance.now();
      if (!force && done < total && now - lastProgressAt < this.#tuning.progressEveryMs) return;
      lastProgressAt = now;
      this.#deps.onProgress?.(entry.progress);
    };

    const looked = await runLookups({
      environmentId,
      repo: store.enrichment,
      clients: this.#deps.clients(environmentId),
      signedIn,
      plan,
      tuning: {
        concurrency: this.#tuning.concurrency ?? environment.concurrency,
        ratePerSecond: this.#tuning.ratePerSecond ?? environment.ratePerSecond,
        maxRetries: this.#tuning.maxRetries,
        retryBaseDelayMs: this.#tuning.retryBaseDelayMs,
        maxRetryWaitMs: this.#tuning.maxRetryWaitMs,
      },
      reuseWithinMs,
      now: this.#now,
      signal: entry.controller.signal,
      canWrite: () => store.isOpen,
      onProgress: (done, total, calls) => report(done, total, calls, done === 0),
    });
    if (!store.isOpen) throw new EnrichmentError('the app is closing; the check stopped');
    // A refresh cut short (a cancel, the core closing) leaves the last check as it was, its answers stored: the
    // orders after its `checkedThrough` are refreshed at the batch's next change, or by the next check.
    if (previous && looked.cancelled) {
      this.#finished(entry, looked.calls);
      return previous;
    }

    // Counted over the whole batch from stored answers (no call), also after a refresh of appended orders: the
    // summary always counts what the preview shows.
    const counts = countBatch(store.enrichment, environmentId, batchId);
    const unanswered = counts.itemsNotChecked > 0 || counts.ordersCourierNotChecked > 0;
    const outcome = looked.cancelled ? 'cancelled' : looked.failures.size > 0 || unanswered ? 'partial' : 'complete';
    const failures = new Set(looked.failures);
    if (previous?.notChecked) failures.add(previous.notChecked);
    const notChecked = FAILURE_ORDER.find((failure) => failures.has(failure)) ?? null;
    const summary = {
      batchId,
      environmentId,
      startedAt,
      finishedAt: this.#now().toISOString(),
      outcome,
      notChecked: outcome === 'complete' ? null : notChecked,
      counts,
      calls: (previous?.calls ?? 0) + looked.calls,
      reused: (previous?.reused ?? 0) + looked.reused,
      checkedThrough,
    } as const;
    const run: EnrichmentRun = { ...summary, message: describeRun(summary) };
    store.inTransaction(() => {
      store.enrichment.saveRun({
        batchId,
        environmentId,
        startedAt: run.startedAt,
        finishedAt: run.finishedAt,
        outcome: run.outcome,
        summary: run,
      });
      // Counts only: never a code, a product or anything of the patients. A refresh of appended orders is the
      // system's (it follows live intake), said by its operation.
      store.audit.append({
        actor: previous ? 'system' : 'user',
        action: 'batch.enriched',
        environmentId,
        batchId,
        details: {
          ...(previous ? { operation: 'appended orders' } : {}),
          outcome: run.outcome,
          orderCount: counts.orders,
          codeCount: counts.codes,
          warningCount: counts.warnings,
          uncheckedCount: counts.itemsNotChecked + counts.ordersCourierNotChecked,
        },
      });
    });
    this.#finished(entry, looked.calls);
    return run;
  }

  #finished(entry: Omit<Running, 'promise'>, calls: number): void {
    const { environmentId, batchId, total } = entry.progress;
    entry.progress = { environmentId, batchId, state: 'finished', done: total, total, calls };
    this.#deps.onProgress?.(entry.progress);
  }
}
