import type { OrderState } from '../store/order-state.js';
import type { Store } from '../store/store.js';
import { SlidingRate } from './sliding-rate.js';

/** One batch's part of the progress: its orders per state and how fast they reach the service. */
export interface BatchProgress {
  batchId: number;
  /** The file it came from; null when the batch is gone. */
  fileName: string | null;
  counts: Record<OrderState, number>;
  /** This batch's orders that reached the service per second over the last few seconds. */
  ordersPerSecond: number;
}

/** The batches shown: the most recently sent from (an admin follows the one going out, and the one before). */
const SHOWN = 3;
/**
 * Batch counts are read through indexes, not kept by triggers like the environment's: at most once a second, and
 * for very large batches less often, so reading them takes at most 2% of the time (a 200,000-order batch costs
 * about 70 ms a read: every 3.5 s).
 */
const COUNT_EVERY_MS = 1_000;
const COUNT_TIME_SHARE = 0.02;

/**
 * Progress per batch (issue #13), beside the environment's: the runner tells it which batch each order it claims
 * or settles belongs to; it keeps a rate per batch and reads the counts of the few batches last active.
 */
export class BatchProgressTracker {
  readonly #batches = new Map<number, { rate: SlidingRate; activeAtMs: number }>();
  #read: { atMs: number; costMs: number; batches: BatchProgress[] } | null = null;
  /** Measures what a read of the counts costs (performance.now(); a test makes reads costly). */
  readonly #clockMs: () => number;

  constructor(clockMs: () => number = () => performance.now()) {
    this.#clockMs = clockMs;
  }

  /** An order of the batch was claimed or answered: it is being sent from. */
  active(batchId: number, nowMs: number): void {
    const known = this.#batches.get(batchId);
    if (known) known.activeAtMs = nowMs;
    else {
      this.#batches.set(batchId, { rate: new SlidingRate(), activeAtMs: nowMs });
      this.#read = null;
    }
    if (this.#batches.size > SHOWN) {
      const oldest = [...this.#batches.entries()].sort((a, b) => a[1].activeAtMs - b[1].activeAtMs)[0]!;
      this.#batches.delete(oldest[0]);
    }
  }

  /** The next report reads the counts again, whatever the last read cost. */
  expire(): void {
    this.#read = this.#read && { ...this.#read, atMs: Number.NEGATIVE_INFINITY };
  }

  /** An order of the batch reached the service. */
  reached(batchId: number, nowMs: number): void {
    this.active(batchId, nowMs);
    this.#batches.get(batchId)?.rate.record(nowMs);
  }

  /**
   * The batches last active, newest first. Counts are read again at most every second (less often for huge
   * batches) unless `fresh` (a report while nothing is sending: those are few), which only the time share holds
   * back; rates are always current. Counts held back are older than the store: `refreshInMs` says when a report
   * would read them again, and the caller must report then, or a batch's last order may never show as settled.
   */
  report(
    store: Store,
    environmentId: string,
    nowMs: number,
    fresh: boolean,
  ): { batches: BatchProgress[]; refreshInMs: number | null } {
    if (this.#batches.size === 0) return { batches: [], refreshInMs: null };
    const share = (this.#read?.costMs ?? 0) / COUNT_TIME_SHARE;
    const every = fresh ? share : Math.max(COUNT_EVERY_MS, share);
    let refreshInMs: number | null = null;
    if (this.#read === null || nowMs - this.#read.atMs >= every) {
      const startedAt = this.#clockMs();
      const batches = [...this.#batches.keys()]
        .sort((a, b) => b - a)
        .map((batchId) => ({
          batchId,
          fileName: store.batches.get(batchId)?.sourceFileName ?? null,
          counts: store.orders.countByStateInBatch(environmentId, batchId),
          ordersPerSecond: 0,
        }));
      this.#read = { atMs: nowMs, costMs: this.#clockMs() - startedAt, batches };
    } else {
      refreshInMs = Math.max(1, Math.ceil(this.#read.atMs + every - nowMs));
    }
    const batches = this.#read.batches.map((batch) => ({
      ...batch,
      ordersPerSecond: this.#batches.get(batch.batchId)?.rate.perSecond(nowMs) ?? 0,
    }));
    return { batches, refreshInMs };
  }
}
