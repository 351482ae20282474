import type { EnrichmentWarning, OrderEnrichment } from '../../../../shared/enrichment-views.js';
import type { StagedOrderView } from '../../../../shared/staging-views.js';

export type FetchEnrichment = (stagedOrderIds: number[]) => Promise<OrderEnrichment[]>;

/** Orders one read asks about (the contract's limit). */
const CHUNK = 200;

/**
 * The service warnings of the orders the grid has loaded, so their cells can be marked: read from the stored
 * answers (`batches.enrichment`) for just those orders, a chunk at a time, never for the whole batch. An edited
 * order (a new object) is read again; `reset` (a check finished) forgets everything and answers still in flight.
 */
export class ServiceMarks {
  readonly #fetch: FetchEnrichment;
  readonly #byOrder = new Map<number, { order: StagedOrderView; warnings: EnrichmentWarning[] }>();
  readonly #inFlight = new Map<number, StagedOrderView>();
  readonly #listeners = new Set<() => void>();
  #generation = 0;
  #version = 0;
  #error: unknown;

  constructor(fetch: FetchEnrichment) {
    this.#fetch = fetch;
  }

  subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  getVersion = (): number => this.#version;

  /** The last failed read (marks then simply stay off; the details panel says what failed). */
  get error(): unknown {
    return this.#error;
  }

  /** The order's service warnings, when read for this very copy of it; undefined until then. */
  warnings(order: StagedOrderView): EnrichmentWarning[] | undefined {
    const entry = this.#byOrder.get(order.id);
    return entry?.order === order ? entry.warnings : undefined;
  }

  /** Reads the warnings of the given orders that are not known (or were edited since), in chunks. */
  want(orders: readonly StagedOrderView[]): void {
    const needed = orders.filter(
      (order) => this.#byOrder.get(order.id)?.order !== order && this.#inFlight.get(order.id) !== order,
    );
    for (let start = 0; start < needed.length; start += CHUNK) {
      const chunk = needed.slice(start, start + CHUNK);
      for (const order of chunk) this.#inFlight.set(order.id, order);
      void this.#read(chunk, this.#generation);
    }
  }

  /** Forgets every mark (a check finished: the stored answers changed). */
  reset(): void {
    this.#generation += 1;
    this.#byOrder.clear();
    this.#inFlight.clear();
    this.#changed();
  }

  async #read(orders: StagedOrderView[], generation: number): Promise<void> {
    let views: OrderEnrichment[];
    try {
      views = await this.#fetch(orders.map((order) => order.id));
    } catch (error) {
      if (generation !== this.#generation) return;
      // Remembered as "no marks" so the grid's next render does not ask again and again; the next check retries.
      for (const order of orders) {
        if (this.#inFlight.get(order.id) === order) this.#inFlight.delete(order.id);
        this.#byOrder.set(order.id, { order, warnings: [] });
      }
      this.#error = error;
      this.#changed();
      return;
    }
    if (generation !== this.#generation) return;
    const byId = new Map(views.map((view) => [view.stagedOrderId, view.warnings]));
    for (const order of orders) {
      if (this.#inFlight.get(order.id) === order) this.#inFlight.delete(order.id);
      this.#byOrder.set(order.id, { order, warnings: byId.get(order.id) ?? [] });
    }
    this.#error = undefined;
    this.#changed();
  }

  #changed(): void {
    this.#version += 1;
    for (const listener of this.#listeners) listener();
  }
}
