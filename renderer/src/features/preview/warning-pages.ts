import type { OrderEnrichment } from '../../../../shared/enrichment-views.js';
import type { StagedOrderView } from '../../../../shared/staging-views.js';
import type { BatchPage, FetchPage } from './batch-pages.js';

/** What the "only orders with service warnings" filter reads through the contract. */
export interface WarningReads<B> {
  /** A page of the orders with service warnings, in file order, and how many there are (`batches.enrichment`). */
  warnings(
    offset: number,
    limit: number,
  ): Promise<{ orders: Array<Pick<OrderEnrichment, 'stagedOrderId' | 'position'>>; total: number }>;
  /** Orders of the batch in file order, unfiltered (`batches.get`): offset `position − 1` is that order. */
  orders(offset: number, limit: number): Promise<BatchPage<B>>;
}

export interface PositionRun {
  /** 1-based position of the first order. */
  start: number;
  count: number;
}

/** Most orders one `batches.get` answers (the contract's limit). */
export const MAX_ORDERS_PER_READ = 500;
/** Orders between two wanted ones that are read and dropped rather than spending another request. */
const MAX_GAP = 20;

/**
 * The positions (ascending) grouped into few reads: neighbours within MAX_GAP share one read, and no read asks
 * for more than `maxRead` orders.
 */
export function positionRuns(positions: readonly number[], maxRead = MAX_ORDERS_PER_READ): PositionRun[] {
  const runs: PositionRun[] = [];
  for (const position of [...positions].sort((a, b) => a - b)) {
    const last = runs[runs.length - 1];
    const end = last ? last.start + last.count - 1 : 0;
    if (last && position <= end) continue;
    if (last && position - end <= MAX_GAP + 1 && position - last.start < maxRead) {
      last.count = position - last.start + 1;
    } else {
      runs.push({ start: position, count: 1 });
    }
  }
  return runs;
}

/**
 * The preview's pages when filtered to orders with service warnings: the core picks them (it builds every
 * order's view from the stored answers), then their rows are read by position in as few reads as possible. An
 * order not found where the filter said (the batch changed in between) fails the page rather than show another.
 */
export function warningPages<B>(reads: WarningReads<B>): FetchPage<B> {
  return async (offset, limit) => {
    const found = await reads.warnings(offset, limit);
    if (found.orders.length === 0) {
      // Nothing (more) to show; the batch view still comes along, for the header.
      const { batch } = await reads.orders(0, 1);
      return { batch, orders: [], total: found.total };
    }
    const runs = positionRuns(found.orders.map((order) => order.position));
    const pages = await Promise.all(runs.map((run) => reads.orders(run.start - 1, run.count)));
    const byId = new Map<number, StagedOrderView>();
    for (const page of pages) for (const order of page.orders) byId.set(order.id, order);
    const orders = found.orders.map((wanted) => {
      const order = byId.get(wanted.stagedOrderId);
      if (!order || order.position !== wanted.position) {
        throw new Error('The batch changed while its orders with service warnings were read: choose the filter again.');
      }
      return order;
    });
    return { batch: pages[pages.length - 1]!.batch, orders, total: found.total };
  };
}
