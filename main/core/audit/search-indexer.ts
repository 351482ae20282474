import type { Store } from '../store/store.js';

export interface SearchIndexerOptions {
  /** Entries per transaction: small enough that the connection is never held long (a few ms here). */
  batch?: number;
  /** Pages a merge step writes once caught up (about 30 ms here under load). */
  mergePages?: number;
  /** How often to look for new entries once caught up. */
  idleMs?: number;
  /** The first look, after the app has started. */
  firstAfterMs?: number;
  onError?: (error: unknown) => void;
}

/**
 * Fills the log's free-text index in the background (migration 017): the entries appended since the last batch, a
 * batch per transaction with a turn of the event loop between batches, so the submitter's appends never pay for it
 * and a large log written before the index is indexed without holding the start-up. Searches find the same
 * meanwhile (they read the entries after the index's mark directly), only slower for a large backlog.
 */
export class AuditSearchIndexer {
  readonly #store: Store;
  readonly #batch: number;
  readonly #idleMs: number;
  readonly #mergePages: number;
  /** Whether segments may be left to merge (after indexing); cleared when a merge step finds nothing to do. */
  #merging = true;
  readonly #onError: ((error: unknown) => void) | undefined;
  #timer: NodeJS.Timeout | NodeJS.Immediate | undefined;
  #stopped = false;

  constructor(store: Store, options: SearchIndexerOptions = {}) {
    this.#store = store;
    this.#batch = options.batch ?? 500;
    this.#idleMs = options.idleMs ?? 2_000;
    this.#mergePages = options.mergePages ?? 32;
    this.#onError = options.onError;
    this.#later(options.firstAfterMs ?? 1_000);
  }

  #later(delayMs: number): void {
    if (this.#stopped) return;
    const timer = setTimeout(() => this.#step(), delayMs);
    timer.unref();
    this.#timer = timer;
  }

  #step(): void {
    if (this.#stopped) return;
    let busy: boolean;
    try {
      const indexed = this.#store.audit.indexForSearch(this.#batch);
      if (indexed > 0) this.#merging = true;
      // Caught up: merge the small segments the batches left, a bounded step at a time, until none is left.
      if (indexed < this.#batch && this.#merging) this.#merging = this.#store.audit.mergeSearchIndex(this.#mergePages);
      busy = indexed === this.#batch || this.#merging;
    } catch (error) {
      this.#onError?.(error);
      this.#later(this.#idleMs * 10);
      return;
    }
    if (!busy) return this.#later(this.#idleMs);
    // More to do: the next step after a turn of the loop (calls and the submitter go first).
    this.#timer = setImmediate(() => this.#step());
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer as NodeJS.Timeout);
    clearImmediate(this.#timer as NodeJS.Immediate);
  }
}
