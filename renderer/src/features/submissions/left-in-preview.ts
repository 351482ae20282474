import { plural } from '../../../../shared/count-words.js';
import type { BatchView } from '../../../../shared/staging-views.js';

/** Batches listed by name beside the sentence; the rest are counted. */
const NAMED = 5;

export interface LeftInPreview {
  sentence: string;
  batches: Array<{ batchId: number; text: string }>;
  more: number;
}

/**
 * Orders imported and not accepted: nothing of them is sent, and the outbox (the rest of this screen) does not
 * hold them, so they are said apart, with their batches. Discarded batches and messages that are no order at all
 * (an ADT among an intake's messages) are left out: no one is to accept them.
 */
export function leftInPreview(batches: readonly BatchView[]): LeftInPreview | undefined {
  const left = batches
    .filter((batch) => batch.discardedAt === null)
    .map((batch) => ({ batch, orders: batch.counts.staged - batch.counts.notOrders }))
    .filter((entry) => entry.orders > 0);
  if (left.length === 0) return undefined;
  const orders = left.reduce((sum, entry) => sum + entry.orders, 0);
  const sentence =
    `${plural(orders, 'order')} in ${plural(left.length, 'batch', 'batches')} ${orders === 1 ? 'is' : 'are'} ` +
    'imported and not accepted: nothing of them is sent until they are accepted in the Preview.';
  return {
    sentence,
    batches: left.slice(0, NAMED).map(({ batch, orders: count }) => {
      const invalid = batch.counts.invalid - batch.counts.notOrders;
      const errors = invalid > 0 ? `, ${plural(invalid, 'with errors', 'with errors')}` : '';
      return {
        batchId: batch.id,
        text: `Batch ${batch.id}: ${batch.sourceFileName} (${plural(count, 'order')}${errors})`,
      };
    }),
    more: Math.max(0, left.length - NAMED),
  };
}
