import type {
  CourierState,
  EnrichmentRun,
  ItemEnrichment,
  PriceState,
  ProductState,
  StockState,
} from '../../../../shared/enrichment-views.js';
import { formatMoney } from '../couriers/format-money.js';
import { formatTime } from '../format/format-date.js';
import { formatCount, plural } from '../format/format-time.js';
import { routeHref, type BatchPlace } from '../workspace/route.js';

/**
 * The service check (enrichment) in words for the preview: every state says itself in text with a symbol, so
 * out of stock or an unknown code is never told by colour alone, and "not checked" always says why.
 */

export type Tone = 'good' | 'warn' | 'muted';

export interface Phrase {
  /** A symbol shown before the text (hidden from screen readers: the text says it all). */
  mark: string;
  text: string;
  tone: Tone;
}

/** How long ago an instant was, in words ("just now", "3 minutes ago", "2 days ago"). */
export function ageText(iso: string, nowMs: number): string {
  const ms = nowMs - Date.parse(iso);
  if (Number.isNaN(ms)) return '';
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 1) return 'just now';
  if (minutes < 60) return `${plural(minutes, 'minute')} ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${plural(hours, 'hour')} ago`;
  return `${plural(Math.floor(hours / 24), 'day')} ago`;
}

/** "10:42:01 (3 minutes ago)". */
export function checkedText(iso: string, nowMs: number): string {
  const age = ageText(iso, nowMs);
  return age ? `${formatTime(iso)} (${age})` : formatTime(iso);
}

export function productPhrase(product: ProductState): Phrase {
  switch (product.state) {
    case 'found':
      return {
        mark: '✓',
        tone: 'good',
        text: product.products
          .map((p) => {
            const pack = p.packSize !== null ? `, pack of ${formatCount(p.packSize)}` : '';
            return `${p.name} (product id ${p.productId}${pack})`;
          })
          .join('; '),
      };
    case 'unknown':
      return { mark: '⚠', tone: 'warn', text: 'Unknown to the service: no product has this dm+d code.' };
    case 'not-checked':
      return { mark: '–', tone: 'muted', text: product.message };
  }
}

export function stockPhrase(stock: StockState): Phrase {
  switch (stock.state) {
    case 'in-stock':
      return { mark: '✓', tone: 'good', text: 'In stock' };
    case 'out-of-stock':
      return { mark: '⚠', tone: 'warn', text: 'Out of stock (the order can still be sent)' };
    case 'not-checked':
      return { mark: '–', tone: 'muted', text: stock.message };
  }
}

export function pricePhrase(price: PriceState): Phrase {
  if (price.state === 'not-checked') return { mark: '–', tone: 'muted', text: price.message };
  const from = price.packsFrom === 'quantity' ? ', worked out from the quantity' : '';
  return {
    mark: '✓',
    tone: 'good',
    text: `${plural(price.totalPacks, 'pack')}${from}: ${formatMoney(price.totalPrice, price.currencyCode)} (${formatMoney(
      price.unitPrice,
      price.currencyCode,
    )} each)`,
  };
}

export function courierPhrase(courier: CourierState): Phrase {
  switch (courier.state) {
    case 'listed':
      return {
        mark: '✓',
        tone: 'good',
        text: `${courier.courierCode}: ${courier.deliveryOption}, ${formatMoney(courier.price, courier.currencyCode)}`,
      };
    case 'not-listed':
      return {
        mark: '⚠',
        tone: 'warn',
        text: `${courier.courierCode} is not on the service's courier list${
          courier.listed.length ? ` (it lists ${courier.listed.join(', ')})` : ''
        }`,
      };
    case 'not-checked':
      return { mark: '–', tone: 'muted', text: courier.message };
  }
}

/** The oldest answer behind an item's product, stock and price: how fresh the item's information is. */
export function itemCheckedAt(item: ItemEnrichment): string | undefined {
  const times = [item.product, item.stock, item.price]
    .map((state) => ('checkedAt' in state ? state.checkedAt : undefined))
    .filter((time): time is string => time !== undefined)
    .sort();
  return times[0];
}

/** A re-check that failed behind any of the item's answers (the answers shown are then older ones). */
export function itemRecheckFailure(item: ItemEnrichment): { message: string; at: string } | undefined {
  for (const state of [item.product, item.stock, item.price]) {
    if ('recheckFailed' in state && state.recheckFailed) return state.recheckFailed;
  }
  return undefined;
}

/** The last check in one line, with when it ran. */
export function runLine(run: EnrichmentRun, nowMs: number): Phrase {
  const when = `Last checked ${checkedText(run.finishedAt, nowMs)}`;
  const tone: Tone = run.outcome === 'complete' ? (run.counts.warnings ? 'warn' : 'good') : 'muted';
  const mark = run.outcome === 'complete' ? (run.counts.warnings ? '⚠' : '✓') : run.outcome === 'cancelled' ? '■' : '!';
  const warnings = run.counts.warnings
    ? ` ${plural(run.counts.warnings, 'service warning')} in ${plural(run.counts.ordersWithWarnings, 'order')}.`
    : '';
  return { mark, tone, text: `${when}. ${run.message}${warnings}` };
}

/** Why the check cannot start now, or undefined when it can. */
export function checkBlockedReason(o: {
  online: boolean;
  signedIn: boolean | undefined;
  environmentName: string;
  hasClientId: boolean;
}): string | undefined {
  if (!o.online) return 'This computer is offline: connect to a network to check products and stock.';
  if (!o.hasClientId) return `${o.environmentName} has no client id yet: add it in Settings, then sign in.`;
  if (o.signedIn === false) return `Sign in to ${o.environmentName} to check stock, prices and couriers.`;
  return undefined;
}

/**
 * Where the Lookups screen opens with its product search filled in (and run); `from` (the preview's batch and
 * order) gives Lookups a way back to the same order.
 */
export function lookupsHref(searchTerm: string, from?: BatchPlace): string {
  return routeHref({ section: 'lookups', search: searchTerm.trim().slice(0, 100), ...(from ? { batch: from } : {}) });
}
