import type { z } from 'zod';
import type {
  CourierState,
  EnrichmentWarning,
  ItemEnrichment,
  LookupFailure,
  NotChecked,
  NotCheckedReason,
  OrderEnrichment,
  PriceState,
  ProductInfo,
  ProductState,
  StockState,
} from '../../../shared/enrichment-views.js';
import { LOOKUP_FAILURES } from '../../../shared/enrichment-views.js';
import { checkSnomedConceptId } from '../../../shared/snomed.js';
import type { StagedItemRow, StoredAnswer } from '../store/enrichment-repo.js';
import {
  couriersAnswerSchema,
  packsToPrice,
  priceAnswerSchema,
  priceKey,
  productAnswerSchema,
  stockAnswerSchema,
} from './answer-values.js';

/**
 * Turns stored answers into what the preview shows of one order: per item product, stock and price, the courier,
 * and the service warnings they lead to. Pure: the same rows and answers always give the same view, whether read
 * right after a check or offline a week later (each answer keeps its own time).
 */

/** The stored answers a view is built from (see answer-book.ts). */
export interface AnswerLookup {
  product(dmdCode: string): StoredAnswer | undefined;
  stock(dmdCode: string): StoredAnswer | undefined;
  price(key: string): StoredAnswer | undefined;
  couriers(): StoredAnswer | undefined;
}

const MESSAGES: Record<NotCheckedReason, string> = {
  never: 'Not checked yet: use "Check products and stock".',
  cancelled: 'Not checked: the check was cancelled before this was answered. Check again to finish it.',
  offline: 'Not checked: the service could not be reached.',
  'signed-out': 'Not checked: signed out. Sign in to check stock, prices and couriers.',
  'service-error': 'Not checked: the service answered with an error.',
  'invalid-code': 'Not checked: the dm+d code is missing or not valid; fix it first.',
  'no-product': 'Not checked: the service has no product for this dm+d code.',
  'no-pack-count': 'Not priced: the item gives no number of packs, and there is no single pack size to work it out.',
};

export function notChecked(reason: NotCheckedReason, triedAt: string | null = null, detail?: string): NotChecked {
  const message =
    reason === 'service-error' && detail
      ? `Not checked: the service answered with an error (${detail}).`
      : MESSAGES[reason];
  return { state: 'not-checked', reason, message, triedAt };
}

/**
 * The batch's last check, when it was cancelled. What it did not get to reads "cancelled", not "never"; this is
 * derived on read (nothing is stored for an aborted question), so a later check of the batch ends it.
 */
export interface CancelledCheck {
  startedAt: string;
  finishedAt: string;
}

/** Whether the cancelled check covered the order as it is now: staged when it started, and not edited since. */
function covered(check: CancelledCheck | undefined, row: StagedItemRow): CancelledCheck | undefined {
  if (!check) return undefined;
  if (row.editedAt !== null && row.editedAt >= check.startedAt) return undefined;
  return row.acceptedAt === null || row.acceptedAt >= check.startedAt ? check : undefined;
}

const LOOKUP_FAILURE_REASONS: ReadonlySet<NotCheckedReason> = new Set(LOOKUP_FAILURES);

/**
 * A question the cancelled check did not get to: never asked, or only an attempt older than the check (which it
 * would have asked again: failures are never reused). Failures it recorded itself (signed out, offline) stand.
 */
function unlessCancelled<T extends ProductState | StockState | PriceState | CourierState>(
  state: T,
  check: CancelledCheck | undefined,
): T | NotChecked {
  const why: ProductState | StockState | PriceState | CourierState = state;
  if (!check || why.state !== 'not-checked') return state;
  const stale =
    why.reason === 'never' ||
    (LOOKUP_FAILURE_REASONS.has(why.reason) && why.triedAt !== null && why.triedAt < check.startedAt);
  return stale ? notChecked('cancelled', check.finishedAt) : state;
}

/** Codes already judged: a batch repeats a few hundred codes across 100,000 items. Bounded: cleared when full. */
const judged = new Map<string, boolean>();
const MAX_JUDGED = 50_000;

/** The item's code when it can be asked about (a valid SNOMED CT concept id); the offline checks flag the rest. */
export function askableCode(dmdCode: string | null): string | undefined {
  if (dmdCode === null) return undefined;
  let ok = judged.get(dmdCode);
  if (ok === undefined) {
    ok = checkSnomedConceptId(dmdCode).ok;
    if (judged.size >= MAX_JUDGED) judged.clear();
    judged.set(dmdCode, ok);
  }
  return ok ? dmdCode : undefined;
}

type Answered<T> =
  { ok: true; value: T; checkedAt: string; recheckFailed: RecheckFailed } | { ok: false; why: NotChecked };
type RecheckFailed = { reason: LookupFailure; message: string; at: string } | null;

/** Parsed values by stored answer: a code shared by 50,000 orders is parsed once per view-building pass. */
const parsedValues = new WeakMap<StoredAnswer, z.ZodSafeParseResult<unknown>>();

function parseValue<T>(answer: StoredAnswer, schema: z.ZodType<T>): z.ZodSafeParseResult<T> {
  let parsed = parsedValues.get(answer) as z.ZodSafeParseResult<T> | undefined;
  if (!parsed) {
    parsed = schema.safeParse(answer.value);
    parsedValues.set(answer, parsed);
  }
  return parsed;
}

/** A stored answer's usable value, or why there is none (never asked, or the attempt failed and nothing older). */
function read<T>(answer: StoredAnswer | undefined, schema: z.ZodType<T>, inherited?: NotChecked): Answered<T> {
  const parsed = answer?.value != null ? parseValue(answer, schema) : undefined;
  if (answer && parsed?.success && answer.fetchedAt) {
    const recheckFailed =
      answer.failure && answer.failedAt
        ? { reason: answer.failure, message: failureText(answer), at: answer.failedAt }
        : null;
    return { ok: true, value: parsed.data, checkedAt: answer.fetchedAt, recheckFailed };
  }
  if (answer?.failure) {
    return { ok: false, why: notChecked(answer.failure, answer.failedAt, answer.failureMessage ?? undefined) };
  }
  // Never asked on its own: say why the question it depends on was not answered, when that is known.
  return { ok: false, why: inherited ?? notChecked('never') };
}

function failureText(answer: StoredAnswer): string {
  return notChecked(answer.failure ?? 'service-error', null, answer.failureMessage ?? undefined).message;
}

function productState(answer: Answered<{ products: ProductInfo[] }>): ProductState {
  if (!answer.ok) return answer.why;
  const { checkedAt, recheckFailed } = answer;
  const [first, ...rest] = answer.value.products;
  return first
    ? { state: 'found', products: [first, ...rest], checkedAt, recheckFailed }
    : { state: 'unknown', checkedAt, recheckFailed };
}

/** Why stock and price cannot be known when the product is not: inherited, so "offline" is not shown as "never". */
function blockedBy(product: ProductState): NotChecked | undefined {
  if (product.state === 'unknown') return notChecked('no-product', product.checkedAt);
  if (product.state === 'not-checked') return product;
  return undefined;
}

function failureOf(answer: StoredAnswer | undefined): NotChecked | undefined {
  return answer?.failure ? notChecked(answer.failure, answer.failedAt, answer.failureMessage ?? undefined) : undefined;
}

export function itemEnrichment(
  row: StagedItemRow,
  answers: AnswerLookup,
  cancelledCheck?: CancelledCheck,
): ItemEnrichment {
  const index = row.itemIndex ?? 0;
  const cancelled = covered(cancelledCheck, row);
  const code = askableCode(row.dmdCode);
  if (code === undefined) {
    const why = notChecked('invalid-code');
    return { index, dmdCode: row.dmdCode, product: why, stock: why, price: why };
  }
  const productAnswer = answers.product(code);
  const product = unlessCancelled(productState(read(productAnswer, productAnswerSchema)), cancelled);
  const blocked = blockedBy(product);
  // A stock or price never asked because the product search failed carries the search's failure.
  const inherited = failureOf(productAnswer);

  let stock: StockState;
  if (blocked) stock = blocked;
  else {
    const answer = read(answers.stock(code), stockAnswerSchema, inherited);
    stock = answer.ok
      ? {
          state: answer.value.inStock ? 'in-stock' : 'out-of-stock',
          checkedAt: answer.checkedAt,
          recheckFailed: answer.recheckFailed,
        }
      : unlessCancelled(answer.why, cancelled);
  }

  let price: PriceState;
  const packs = product.state === 'found' ? packsToPrice(row, product.products) : undefined;
  if (blocked) price = blocked;
  else if (!packs) price = notChecked('no-pack-count');
  else {
    const answer = read(answers.price(priceKey(code, packs.packs)), priceAnswerSchema, inherited);
    price = answer.ok
      ? {
          state: 'priced',
          totalPacks: answer.value.totalPacks,
          packsFrom: packs.from,
          unitPrice: answer.value.unitPrice,
          totalPrice: answer.value.totalPrice,
          currencyCode: answer.value.currencyCode,
          checkedAt: answer.checkedAt,
          recheckFailed: answer.recheckFailed,
        }
      : unlessCancelled(answer.why, cancelled);
  }
  return { index, dmdCode: row.dmdCode, product, stock, price };
}

export function courierState(
  courierCode: string | null,
  answers: AnswerLookup,
  cancelled?: CancelledCheck,
): CourierState {
  if (courierCode === null || courierCode.trim() === '') {
    return {
      ...notChecked('invalid-code'),
      message: 'Not checked: the order has no courier code; the offline checks flag it.',
    };
  }
  const answer = read(answers.couriers(), couriersAnswerSchema);
  if (!answer.ok) return unlessCancelled(answer.why, cancelled);
  const { checkedAt, recheckFailed } = answer;
  const listed = answer.value.options.find((option) => option.courierCode === courierCode);
  if (listed) {
    return {
      state: 'listed',
      courierCode,
      deliveryOption: listed.deliveryOption,
      price: listed.price,
      currencyCode: listed.currencyCode,
      checkedAt,
      recheckFailed,
    };
  }
  const codes = [...new Set(answer.value.options.map((option) => option.courierCode))];
  return { state: 'not-listed', courierCode, listed: codes, checkedAt, recheckFailed };
}

/** The service warnings an order's view leads to, each on the field it is about. */
function warningsOf(
  stagedOrderId: number,
  rows: readonly StagedItemRow[],
  items: readonly ItemEnrichment[],
  courier: CourierState,
): EnrichmentWarning[] {
  const warnings: EnrichmentWarning[] = [];
  const warn = (w: Omit<EnrichmentWarning, 'source' | 'stagedOrderId'>) =>
    warnings.push({ source: 'service', stagedOrderId, ...w });
  items.forEach((item, at) => {
    const base = `prescribedItems.${item.index}`;
    const { product, stock } = item;
    if (product.state === 'unknown') {
      warn({
        itemIndex: item.index,
        field: `${base}.dmdCode`,
        code: 'service.unknownCode',
        text: `The service has no product for dm+d code ${item.dmdCode ?? ''}.`,
        checkedAt: product.checkedAt,
      });
    }
    if (product.state === 'found') {
      const productId = rows[at]?.productId ?? null;
      if (productId !== null && !product.products.some((candidate) => candidate.productId === productId)) {
        warn({
          itemIndex: item.index,
          field: `${base}.productId`,
          code: 'service.productMismatch',
          text: `Product id ${productId} is not listed for dm+d code ${item.dmdCode ?? ''}; the service lists ${product.products
            .map((candidate) => candidate.productId)
            .join(', ')}.`,
          checkedAt: product.checkedAt,
        });
      }
    }
    if (stock.state === 'out-of-stock') {
      const name = product.state === 'found' ? product.products.map((candidate) => candidate.name).join(' / ') : '';
      warn({
        itemIndex: item.index,
        field: `${base}.dmdCode`,
        code: 'service.outOfStock',
        text: `Out of stock at the service${name ? `: ${name}` : ''}. The order can still be sent.`,
        checkedAt: stock.checkedAt,
      });
    }
  });
  if (courier.state === 'not-listed') {
    warn({
      itemIndex: null,
      field: 'prescription.courierCode',
      code: 'service.unknownCourier',
      text: `Courier code "${courier.courierCode}" is not on the service's courier list${
        courier.listed.length ? ` (${courier.listed.join(', ')})` : ''
      }.`,
      checkedAt: courier.checkedAt,
    });
  }
  return warnings;
}

/**
 * Everything known of one order, from its item rows (all of the same staged order, in item order). `cancelled`:
 * the batch's last check, when it was cancelled (see CancelledCheck).
 */
export function orderEnrichment(
  rows: readonly StagedItemRow[],
  answers: AnswerLookup,
  cancelled?: CancelledCheck,
): OrderEnrichment {
  const first = rows[0];
  if (!first) throw new Error('an order view needs the order’s rows');
  const withItems = rows.filter((row) => row.itemIndex !== null);
  const items = withItems.map((row) => itemEnrichment(row, answers, cancelled));
  const courier = courierState(first.courierCode, answers, covered(cancelled, first));
  return {
    stagedOrderId: first.stagedOrderId,
    position: first.position,
    courier,
    items,
    total: orderTotal(items),
    warnings: warningsOf(first.stagedOrderId, withItems, items, courier),
  };
}

/** The order's value at the service's prices, when every item is priced in the same currency. */
function orderTotal(items: readonly ItemEnrichment[]): OrderEnrichment['total'] {
  let total = 0;
  let currency: string | undefined;
  for (const item of items) {
    if (item.price.state !== 'priced') return null;
    if (currency !== undefined && item.price.currencyCode !== currency) return null;
    currency = item.price.currencyCode;
    total += item.price.totalPrice;
  }
  return currency === undefined ? null : { totalPrice: Math.round(total * 100) / 100, currencyCode: currency };
}
