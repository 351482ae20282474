import type { StagedOrderView } from '../../../../shared/staging-views.js';

/** One page of a batch as `batches.get` answers it (the batch view comes along and is handed to `onBatch`). */
export interface BatchPage<B> {
  batch: B;
  orders: StagedOrderView[];
  total: number;
}

export type FetchPage<B> = (offset: number, limit: number) => Promise<BatchPage<B>>;

/**
 * The preview's window onto a staged batch: pages of orders fetched as the grid scrolls to them (never the whole
 * batch), at most a few requests at once, and only the most recently used pages kept, so 100,000 rows cost a few
 * hundred orders of memory. Subscribers hear about every change (a page arrived, an order was replaced).
 */
export class BatchPages<B> {
  readonly pageSize: number;
  readonly #fetch: FetchPage<B>;
  readonly #maxPages: number;
  readonly #pages = new Map<number, StagedOrderView[]>();
  readonly #loading = new Map<number, Promise<void>>();
  readonly #listeners = new Set<() => void>();
  readonly #onBatch: ((batch: B) => void) | undefined;
  #total: number | undefined;
  #version = 0;
  #error: unknown;
  #disposed = false;

  constructor(
    fetch: FetchPage<B>,
    options: { pageSize?: number; maxPages?: number; onBatch?: (batch: B) => void } = {},
  ) {
    this.#fetch = fetch;
    this.pageSize = options.pageSize ?? 50;
    this.#maxPages = options.maxPages ?? 40;
    this.#onBatch = options.onBatch;
  }

  /** Orders matching the filter; undefined until the first page is in. */
  get total(): number | undefined {
    return this.#total;
  }

  /** Changes with every update (for useSyncExternalStore). */
  get version(): number {
    return this.#version;
  }

  /** The last failed fetch, cleared by the next successful one. */
  get error(): unknown {
    return this.#error;
  }

  subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  getVersion = (): number => this.#version;

  /** The order at a position of the filtered list, when its page is loaded. */
  get(index: number): StagedOrderView | undefined {
    const page = Math.floor(index / this.pageSize);
    const orders = this.#pages.get(page);
    if (!orders) return undefined;
    // Touching a page keeps it among the most recently used.
    this.#pages.delete(page);
    this.#pages.set(page, orders);
    return orders[index - page * this.pageSize];
  }

  /** The orders loaded so far (for estimating how many item lines an order takes). */
  loaded(): StagedOrderView[] {
    return [...this.#pages.values()].flat();
  }

  /** Loads the pages covering positions `from`…`to` (inclusive) that are not loaded or loading. */
  ensure(from: number, to: number): Promise<void> {
    const first = Math.max(0, Math.floor(from / this.pageSize));
    const last = Math.max(first, Math.floor(Math.max(from, to) / this.pageSize));
    const waits: Array<Promise<void>> = [];
    for (let page = first; page <= last; page += 1) {
      if (this.#total !== undefined && page * this.pageSize >= this.#total && page > 0) break;
      if (this.#pages.has(page)) continue;
      waits.push(this.#loading.get(page) ?? this.#load(page));
    }
    return Promise.all(waits).then(() => undefined);
  }

  /** Puts an order changed by an edit in place of its older copy, wherever it is loaded. */
  replace(order: StagedOrderView): void {
    for (const [page, orders] of this.#pages) {
      const at = orders.findIndex((candidate) => candidate.id === order.id);
      if (at >= 0) {
        const next = orders.slice();
        next[at] = order;
        this.#pages.set(page, next);
        this.#changed();
        return;
      }
    }
  }

  /** Stops notifying (the screen closed or the filter changed); answers still in flight are dropped. */
  dispose(): void {
    this.#disposed = true;
    this.#listeners.clear();
  }

  #load(page: number): Promise<void> {
    const loading = this.#fetch(page * this.pageSize, this.pageSize).then(
      (answer) => {
        this.#loading.delete(page);
        if (this.#disposed) return;
        this.#error = undefined;
        this.#total = answer.total;
        this.#pages.set(page, answer.orders);
        this.#evict();
        this.#onBatch?.(answer.batch);
        this.#changed();
      },
      (error: unknown) => {
        this.#loading.delete(page);
        if (this.#disposed) return;
        this.#error = error;
        this.#changed();
      },
    );
    this.#loading.set(page, loading);
    return loading;
  }

  #evict(): void {
    while (this.#pages.size > this.#maxPages) {
      const oldest = this.#pages.keys().next().value;
      if (oldest === undefined) return;
      this.#pages.delete(oldest);
    }
  }

  #changed(): void {
    this.#version += 1;
    for (const listener of this.#listeners) listener();
  }
}
