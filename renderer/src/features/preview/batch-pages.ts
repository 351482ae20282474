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
 * batch), and only the most recently used pages kept, so 100,000 rows cost a few hundred orders of memory.
 * Subscribers hear about every change (a page arrived, an order was replaced).
 *
 * The grid says what is in view with `want` (the latest call wins): at most `maxInFlight` of those pages are
 * fetched at once, and a page the view has already left by the time a request slot frees is never fetched. A
 * scrollbar dragged across 100,000 rows so asks for the pages where it is, not for every page it passed: each
 * answer is about 300 kB of JSON that the page must decode and check, and decoding answers nobody looks at is
 * what made the long frames (and the garbage collections after them) while scrolling.
 */
export class BatchPages<B> {
  readonly pageSize: number;
  readonly #fetch: FetchPage<B>;
  readonly #maxPages: number;
  readonly #pages = new Map<number, StagedOrderView[]>();
  readonly #loading = new Map<number, Promise<void>>();
  readonly #listeners = new Set<() => void>();
  readonly #onBatch: ((batch: B) => void) | undefined;
  readonly #maxInFlight: number;
  /** Pages of the latest `want`, in the order to fetch them. */
  #wanted: number[] = [];
  #total: number | undefined;
  /** Pages loaded before the latest `refresh`: shown until their new copy arrives, fetched again when wanted. */
  readonly #stale = new Set<number>();
  #refreshes = 0;
  #version = 0;
  #error: unknown;
  #disposed = false;

  constructor(
    fetch: FetchPage<B>,
    options: { pageSize?: number; maxPages?: number; maxInFlight?: number; onBatch?: (batch: B) => void } = {},
  ) {
    this.#fetch = fetch;
    this.pageSize = options.pageSize ?? 50;
    this.#maxPages = options.maxPages ?? 12;
    this.#maxInFlight = options.maxInFlight ?? 2;
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

  /** `get` without counting as a use (for reading state during a render). */
  peek(index: number): StagedOrderView | undefined {
    const page = Math.floor(index / this.pageSize);
    return this.#pages.get(page)?.[index - page * this.pageSize];
  }

  /** The orders loaded so far (for estimating how many item lines an order takes). */
  loaded(): StagedOrderView[] {
    return [...this.#pages.values()].flat();
  }

  /** Loads the pages covering positions `from`…`to` (inclusive) that are not loaded or loading, all at once. */
  ensure(from: number, to: number): Promise<void> {
    const waits: Array<Promise<void>> = [];
    for (const page of this.#pagesOf(from, to)) {
      if (this.#pages.has(page)) continue;
      waits.push(this.#loading.get(page) ?? this.#load(page));
    }
    return Promise.all(waits).then(() => undefined);
  }

  /**
   * What the grid has in view now (positions `from`…`to`, inclusive): its missing pages are fetched, at most
   * `maxInFlight` at a time; pages an earlier call wanted and this one does not are no longer fetched.
   */
  want(from: number, to: number): void {
    this.#wanted = this.#pagesOf(from, to);
    this.#pump();
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

  /**
   * The batch changed under the window (a find and replace, an undo): every loaded page is fetched again as the
   * grid wants it, and shown as it was until then (no rows blank out, the scroll position stays).
   */
  refresh(): void {
    this.#refreshes += 1;
    for (const page of this.#pages.keys()) this.#stale.add(page);
    for (const page of this.#loading.keys()) this.#stale.add(page);
    this.#pump();
  }

  /** Stops notifying (the screen closed or the filter changed); answers still in flight are dropped. */
  dispose(): void {
    this.#disposed = true;
    this.#listeners.clear();
  }

  #pagesOf(from: number, to: number): number[] {
    const first = Math.max(0, Math.floor(from / this.pageSize));
    const last = Math.max(first, Math.floor(Math.max(from, to) / this.pageSize));
    const pages: number[] = [];
    for (let page = first; page <= last; page += 1) {
      if (this.#total !== undefined && page * this.pageSize >= this.#total && page > 0) break;
      pages.push(page);
    }
    return pages;
  }

  /** Starts fetching the wanted pages that are missing, while fewer than `maxInFlight` requests are out. */
  #pump(): void {
    if (this.#disposed) return;
    for (const page of this.#wanted) {
      if (this.#loading.size >= this.#maxInFlight) return;
      if ((!this.#pages.has(page) || this.#stale.has(page)) && !this.#loading.has(page)) void this.#load(page);
    }
  }

  #load(page: number): Promise<void> {
    const asked = this.#refreshes;
    const loading = this.#fetch(page * this.pageSize, this.pageSize).then(
      (answer) => {
        this.#loading.delete(page);
        if (this.#disposed) return;
        this.#error = undefined;
        this.#total = answer.total;
        // An answer asked for before the latest refresh may predate the change: it stays stale.
        if (asked === this.#refreshes) this.#stale.delete(page);
        this.#pages.delete(page);
        this.#pages.set(page, answer.orders);
        this.#evict();
        this.#onBatch?.(answer.batch);
        this.#changed();
        this.#pump();
      },
      (error: unknown) => {
        this.#loading.delete(page);
        if (this.#disposed) return;
        this.#error = error;
        // The failed page stays out of the wanted list, so a dead connection is not asked again and again; the
        // grid's next `want` (any scroll) tries again.
        this.#wanted = this.#wanted.filter((wanted) => wanted !== page);
        this.#changed();
        this.#pump();
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
