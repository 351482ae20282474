import type { Store } from '../store/store.js';

export interface SearchIndexerOptions {
  /** Entries per transaction: small enough that the connection is never held long (a few ms here). */
  batch?: number;
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
  readonly #onError: ((error: unknown) => void) | undefined;
  #timer: NodeJS.Timeout | NodeJS.Immediate | undefined;
  #stopped = false;

  constructor(store: Store, options: SearchIndexerOptions = {}) {
    this.#store = store;
    this.#batch = options.batch ?? 500;
    this.#idleMs = options.idleMs ?? 2_000;
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
    let indexed: number;
    try {
      indexed = this.#store.audit.indexForSearch(this.#batch);
    } catch (error) {
      this.#onError?.(error);
      this.#later(this.#idleMs * 10);
      return;
    }
    if (indexed < this.#batch) return this.#later(this.#idleMs);
    // A backlog: the next batch after a turn of the loop (calls and the submitter go first).
    this.#timer = setImmediate(() => this.#step());
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer as NodeJS.Timeout);
    clearImmediate(this.#timer as NodeJS.Immediate);
  }
}
