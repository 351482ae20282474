import type {
  EnrichmentCounts,
  EnrichmentRun,
  LookupFailure,
  NotCheckedReason,
} from '../../../shared/enrichment-views.js';
import { LOOKUP_FAILURES } from '../../../shared/enrichment-views.js';
import type { EnrichmentRepo } from '../store/enrichment-repo.js';
import { byOrder, loadAnswers } from './answer-book.js';
import { orderEnrichment } from './order-view.js';

/**
 * The counts of a batch's check, worked out from the same views the preview shows (so the summary and the
 * details panel can never disagree), over every staged order of the batch.
 */

/** Not checked because the check could not be made (as opposed to a bad code, or no pack count). */
const UNCHECKED: ReadonlySet<NotCheckedReason> = new Set(['never', 'cancelled', ...LOOKUP_FAILURES]);

export function countBatch(repo: EnrichmentRepo, environmentId: string, batchId: number): EnrichmentCounts {
  // One synchronous pass over the cursor (it must not stay open across an await).
  const rows = [...repo.stagedItems(batchId)];
  const answers = loadAnswers(repo, environmentId, rows);
  const counts: EnrichmentCounts = {
    orders: 0,
    items: 0,
    codes: answers.codes.size,
    codesFound: 0,
    codesUnknown: 0,
    codesOutOfStock: 0,
    itemsOutOfStock: 0,
    itemsPriced: 0,
    itemsNotChecked: 0,
    courierCodes: 0,
    courierCodesNotListed: 0,
    ordersCourierNotChecked: 0,
    earlierAnswers: 0,
    ordersWithWarnings: 0,
    warnings: 0,
  };
  const couriers = new Set<string>();
  const notListed = new Set<string>();
  const found = new Set<string>();
  const unknown = new Set<string>();
  const outOfStock = new Set<string>();
  for (const order of byOrder(rows)) {
    const view = orderEnrichment(order, answers);
    counts.orders += 1;
    counts.items += view.items.length;
    counts.warnings += view.warnings.length;
    if (view.warnings.length > 0) counts.ordersWithWarnings += 1;
    const courier = view.courier;
    if (courier.state === 'not-checked') {
      if (UNCHECKED.has(courier.reason)) counts.ordersCourierNotChecked += 1;
    } else {
      couriers.add(courier.courierCode);
      if (courier.state === 'not-listed') notListed.add(courier.courierCode);
      // A failure is stored beside the last good answer, never over it: that answer is older than this check.
      if (courier.recheckFailed) counts.earlierAnswers += 1;
    }
    for (const item of view.items) {
      const code = item.dmdCode ?? '';
      if (item.product.state === 'found') found.add(code);
      if (item.product.state === 'unknown') unknown.add(code);
      if (item.stock.state === 'out-of-stock') {
        outOfStock.add(code);
        counts.itemsOutOfStock += 1;
      }
      if (item.price.state === 'priced') counts.itemsPriced += 1;
      const states = [item.product, item.stock, item.price];
      if (states.some((state) => state.state === 'not-checked' && UNCHECKED.has(state.reason))) {
        counts.itemsNotChecked += 1;
      } else if (states.some((state) => state.state !== 'not-checked' && state.recheckFailed)) {
        counts.earlierAnswers += 1;
      }
    }
  }
  counts.codesFound = found.size;
  counts.codesUnknown = unknown.size;
  counts.codesOutOfStock = outOfStock.size;
  counts.courierCodes = couriers.size;
  counts.courierCodesNotListed = notListed.size;
  return counts;
}

const n = (value: number) => value.toLocaleString('en-GB');
const plural = (value: number, one: string, many = `${one}s`) => `${n(value)} ${value === 1 ? one : many}`;

const STOPPED: Record<LookupFailure, string> = {
  offline: 'the service could not be reached',
  'signed-out': 'signed out (product search works without a sign-in; stock, prices and couriers need one)',
  'service-error': 'the service answered with errors',
};

/** One or two sentences for the admin: what was checked, what it found, and what was not checked and why. */
export function describeRun(run: Omit<EnrichmentRun, 'message'>): string {
  const c = run.counts;
  if (c.orders === 0) return 'There are no staged orders to check in this batch.';
  const findings = [
    c.codesUnknown ? `${plural(c.codesUnknown, 'code')} unknown to the service` : '',
    c.codesOutOfStock
      ? `${plural(c.codesOutOfStock, 'product')} out of stock (${plural(c.itemsOutOfStock, 'item')})`
      : '',
    c.courierCodesNotListed ? `${plural(c.courierCodesNotListed, 'courier code')} not on the courier list` : '',
  ].filter(Boolean);
  const what =
    `Checked ${plural(c.codes, 'dm+d code')} and ${plural(c.courierCodes, 'courier code')} ` +
    `for ${plural(c.orders, 'order')} with ${plural(run.calls, 'call')} to the service` +
    (run.reused ? ` (${n(run.reused)} recent ${run.reused === 1 ? 'answer' : 'answers'} reused)` : '') +
    (findings.length ? `: ${findings.join(', ')}.` : run.outcome === 'complete' ? ': nothing to warn about.' : '.');
  if (run.outcome === 'cancelled') return `${what} Cancelled: the answers that came are kept.`;
  if (run.outcome === 'partial') {
    const why = run.notChecked ? STOPPED[run.notChecked] : 'some answers are missing';
    const missing = [
      c.itemsNotChecked ? plural(c.itemsNotChecked, 'item') : '',
      c.ordersCourierNotChecked ? plural(c.ordersCourierNotChecked, 'courier') : '',
    ].filter(Boolean);
    // Items and couriers whose re-check failed still show an earlier answer: say how many, not "some answers".
    const earlier = c.earlierAnswers
      ? `${plural(c.earlierAnswers, 'earlier answer')} could not be checked again (${c.earlierAnswers === 1 ? 'it is' : 'they are'} shown with ${c.earlierAnswers === 1 ? 'its' : 'their'} own time)`
      : '';
    const left = [missing.join(' and '), earlier].filter(Boolean).join('; ') || 'some answers';
    return `${what} Not checked: ${left}, because ${why}.`;
  }
  return what;
}
