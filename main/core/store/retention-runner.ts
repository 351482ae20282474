import type { Store } from './store.js';

/**
 * Applies retention (`retention-repo.ts`) in the background: small transactions with a turn of the event loop
 * between them, so the submitter, the poller and the screens keep their pace, then gives the freed pages back to
 * the file system in steps (incremental vacuum). A run that stops half-way (the app closed, a crash) leaves
 * only finished steps behind, and the next run carries on: every step is idempotent.
 */

export interface RetentionRunOptions {
  /**
   * Staged orders (positions in a batch) a compaction step looks at, and orders a body-packing step looks at, at
   * most (default 50: a few milliseconds here).
   */
  rowsPerStep?: number;
  /** Free pages a vacuum step gives back at most (default 256: 1 MB; 1,024 took up to 166 ms at load 12). */
  pagesPerStep?: number;
  /** Between two steps (default: one turn of the event loop); tests may pass their own. */
  pause?: () => Promise<void>;
  /** Stops the run between steps. */
  signal?: AbortSignal;
  /** Called after each step: a crash test stops here. */
  onStep?: (progress: RetentionProgress) => void;
}

export interface RetentionProgress {
  compacted: number;
  /** Finished orders whose request body was stored packed (lossless). */
  bodiesPacked: number;
  deleted: number;
  batchesFinished: number;
  steps: number;
  /** Free pages given back to the file system (zero when the store is not in incremental auto-vacuum mode). */
  pagesReturned: number;
}

export interface RetentionRunResult extends RetentionProgress {
  /** Null: the setting keeps staged copies for ever, so nothing was compacted. */
  cutoff: string | null;
  autoVacuum: 'none' | 'full' | 'incremental';
  /** Free pages left in the file (reused by later writes). */
  freePages: number;
  aborted: boolean;
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

export async function applyRetention(store: Store, options: RetentionRunOptions = {}): Promise<RetentionRunResult> {
  const rowsPerStep = options.rowsPerStep ?? 50;
  const pagesPerStep = options.pagesPerStep ?? 256;
  const pause = options.pause ?? turn;
  const progress: RetentionProgress = {
    compacted: 0,
    bodiesPacked: 0,
    deleted: 0,
    batchesFinished: 0,
    steps: 0,
    pagesReturned: 0,
  };
  const stopped = () => options.signal?.aborted === true || !store.isOpen;
  const stepped = () => {
    progress.steps += 1;
    options.onStep?.({ ...progress });
  };

  const cutoff = store.retention.cutoff();
  if (cutoff !== null) {
    let after = 0;
    let kept = 0;
    for (let batch = store.retention.nextBatch(0, cutoff); batch && !stopped();) {
      const step = store.retention.compactStep(batch, cutoff, after, rowsPerStep, kept);
      progress.compacted += step.compacted;
      progress.deleted += step.deleted;
      if (step.finished) progress.batchesFinished += 1;
      stepped();
      await pause();
      if (stopped()) break;
      // The rest of the batch, then the next (one with open orders is visited again by a later run).
      after = step.more ? step.after : 0;
      kept = step.more ? kept + step.kept : 0;
      if (!step.more) batch = store.retention.nextBatch(batch.id, cutoff);
    }
    // Then the finished orders' bodies, packed losslessly (not audited: nothing is lost or changed but the bytes).
    for (let after = 0, more = true; more && !stopped();) {
      const step = store.retention.packBodiesStep(cutoff, after, rowsPerStep);
      progress.bodiesPacked += step.packed;
      stepped();
      ({ after, more } = step);
      if (more) await pause();
    }
  }

  // One entry for what this run dropped (a run cut short leaves its share to the next run's entry).
  if (progress.compacted + progress.deleted > 0 && store.isOpen) {
    store.audit.append({
      actor: 'system',
      action: 'retention.applied',
      details: { orderCount: progress.compacted, rowCount: progress.deleted },
    });
  }

  let vacuum = store.retention.vacuumStep(0);
  while (!stopped() && vacuum.autoVacuum === 'incremental' && vacuum.freePages > 0) {
    const before = vacuum.freePages;
    vacuum = store.retention.vacuumStep(pagesPerStep);
    progress.pagesReturned += before - vacuum.freePages;
    stepped();
    if (vacuum.freePages >= before) break;
    await pause();
  }
  return {
    ...progress,
    cutoff,
    autoVacuum: vacuum.autoVacuum,
    freePages: stopped() ? vacuum.freePages : store.retention.vacuumStep(0).freePages,
    aborted: stopped(),
  };
}

export interface RetentionScheduleOptions extends RetentionRunOptions {
  /** After the store opens, before the first run (default 2 minutes: start-up and recovery come first). */
  firstRunAfterMs?: number;
  /** Between runs (default 6 hours). */
  everyMs?: number;
  /** After `soon()` (the setting shortened), before the run it brings forward (default 30 seconds). */
  soonAfterMs?: number;
  /** Told of a run's failure (the next run tries again). */
  onError?: (error: unknown) => void;
  onRun?: (result: RetentionRunResult) => void;
}

/**
 * Runs `applyRetention` on a timer that never keeps the process alive; `soon` brings the next run forward (a run
 * reads the setting as it starts, so a changed one applies from that run on); `stop` waits for a run under way.
 */
export class RetentionSchedule {
  readonly #store: Store;
  readonly #options: RetentionScheduleOptions;
  readonly #abort = new AbortController();
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  /** When the timer fires (epoch ms); undefined while a run is under way or after `stop`. */
  #dueAt: number | undefined;
  /** `soon` was asked during a run: the next run follows it after `soonAfterMs`, not `everyMs`. */
  #again = false;

  constructor(store: Store, options: RetentionScheduleOptions = {}) {
    this.#store = store;
    this.#options = options;
    this.#schedule(options.firstRunAfterMs ?? 120_000);
  }

  /** When the next run starts (epoch ms), or undefined while one runs or once stopped. */
  get nextRunAt(): number | undefined {
    return this.#dueAt;
  }

  /** Brings the next run forward to `soonAfterMs` from now (never later than it was already due). */
  soon(): void {
    if (this.#abort.signal.aborted) return;
    const delayMs = this.#options.soonAfterMs ?? 30_000;
    if (this.#running) {
      this.#again = true;
      return;
    }
    if (this.#dueAt !== undefined && this.#dueAt <= Date.now() + delayMs) return;
    clearTimeout(this.#timer);
    this.#schedule(delayMs);
  }

  #schedule(delayMs: number): void {
    if (this.#abort.signal.aborted) return;
    this.#dueAt = Date.now() + delayMs;
    this.#timer = setTimeout(() => {
      this.#dueAt = undefined;
      // The next run is scheduled before anyone is told of this one, so what they read next is already true.
      this.#running = applyRetention(this.#store, { ...this.#options, signal: this.#abort.signal }).then(
        (result) => {
          this.#ended();
          try {
            this.#options.onRun?.(result);
          } catch (error) {
            this.#options.onError?.(error);
          }
        },
        (error: unknown) => {
          this.#ended();
          this.#options.onError?.(error);
        },
      );
    }, delayMs);
    this.#timer.unref();
  }

  #ended(): void {
    this.#running = undefined;
    const again = this.#again;
    this.#again = false;
    this.#schedule(again ? (this.#options.soonAfterMs ?? 30_000) : (this.#options.everyMs ?? 6 * 3_600_000));
  }

  async stop(): Promise<void> {
    this.#abort.abort();
    clearTimeout(this.#timer);
    this.#dueAt = undefined;
    await this.#running;
  }
}
