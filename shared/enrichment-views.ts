import { z } from 'zod';
import { COURIER_CODE_MAX, DELIVERY_OPTION_MAX, MAX_COURIER_OPTIONS } from './couriers.js';
import { CURRENCY_CODE_MAX, MAX_PRODUCTS_PER_CODE, PRODUCT_TEXT_MAX } from './products.js';

/**
 * What checking a staged batch with the Order Service found out (issue #4, "when online"): for each prescribed
 * item the product(s) its dm+d code names, stock and the price of its packs; for each order whether its courier
 * code is on the service's courier list. Every answer carries the time it was fetched, so it can be read offline
 * with its age. These are **service warnings**, never errors: they are kept apart from the offline validation
 * problems (`problems` of a staged order), are marked `source: 'service'`, and never stop an order being accepted.
 */

/** Why a value is not known: never asked, or the last attempt could not be made or answered. */
export const NOT_CHECKED_REASONS = [
  /** Not asked yet (the batch was never checked, or the value was edited in since). */
  'never',
  /**
   * The batch's last check was cancelled before this was answered (derived on read from that check, never
   * stored): until a later check answers it.
   */
  'cancelled',
  /** The service could not be reached. */
  'offline',
  /** Stock, price and courier checks need a sign-in (product search does not). */
  'signed-out',
  /** The service answered with an error (5xx after retries, an unreadable answer, a refusal). */
  'service-error',
  /** The dm+d code is missing or malformed: the offline checks flag it; fix it first. */
  'invalid-code',
  /** Stock and price: the service does not know the product, so there is nothing to ask. */
  'no-product',
  /** Price: the item gives no number of packs and the product no pack size to work it out. */
  'no-pack-count',
] as const;
export type NotCheckedReason = (typeof NOT_CHECKED_REASONS)[number];

/** The failures a call can end in (a subset of the reasons above). */
export const LOOKUP_FAILURES = ['offline', 'signed-out', 'service-error'] as const;
export const lookupFailureSchema = z.enum(LOOKUP_FAILURES);
export type LookupFailure = z.infer<typeof lookupFailureSchema>;

const isoInstant = z.string();

export const notCheckedSchema = z.object({
  state: z.literal('not-checked'),
  reason: z.enum(NOT_CHECKED_REASONS),
  /** Plain words for the admin. */
  message: z.string(),
  /** When the failed attempt was made (`cancelled`: when the check was cancelled); null when none was. */
  triedAt: isoInstant.nullable(),
});
export type NotChecked = z.infer<typeof notCheckedSchema>;

/** A later attempt failed, so the answer shown is an older one (still with its own time). */
const recheckFailedSchema = z.object({ reason: lookupFailureSchema, message: z.string(), at: isoInstant }).nullable();

const answered = { checkedAt: isoInstant, recheckFailed: recheckFailedSchema };

/** Kept cut where the answer is read and stored (main/core/enrichment/answer-values.ts; finding 70). */
export const productInfoSchema = z.object({
  productId: z.number().int().nonnegative(),
  name: z.string().max(PRODUCT_TEXT_MAX.name),
  packSize: z.number().nullable(),
  form: z.string().max(PRODUCT_TEXT_MAX.form).nullable(),
  strength: z.string().max(PRODUCT_TEXT_MAX.strength).nullable(),
});
export type ProductInfo = z.infer<typeof productInfoSchema>;

export const productStateSchema = z.discriminatedUnion('state', [
  /** The service lists the code (usually one product; a code with several packs lists several). */
  z.object({
    state: z.literal('found'),
    products: z.array(productInfoSchema).min(1).max(MAX_PRODUCTS_PER_CODE),
    ...answered,
  }),
  /** Product search found nothing for the code: a warning. */
  z.object({ state: z.literal('unknown'), ...answered }),
  notCheckedSchema,
]);
export type ProductState = z.infer<typeof productStateSchema>;

export const stockStateSchema = z.discriminatedUnion('state', [
  z.object({ state: z.literal('in-stock'), ...answered }),
  /** A warning: the order can still be sent; the pharmacy decides. */
  z.object({ state: z.literal('out-of-stock'), ...answered }),
  notCheckedSchema,
]);
export type StockState = z.infer<typeof stockStateSchema>;

export const priceStateSchema = z.discriminatedUnion('state', [
  z.object({
    state: z.literal('priced'),
    totalPacks: z.number().int().positive(),
    /** `pack`: the item's number of packs; `quantity`: worked out as quantity ÷ pack size, rounded up. */
    packsFrom: z.enum(['pack', 'quantity']),
    unitPrice: z.number().nonnegative(),
    totalPrice: z.number().nonnegative(),
    currencyCode: z.string().max(CURRENCY_CODE_MAX),
    ...answered,
  }),
  notCheckedSchema,
]);
export type PriceState = z.infer<typeof priceStateSchema>;

export const courierStateSchema = z.discriminatedUnion('state', [
  z.object({
    state: z.literal('listed'),
    courierCode: z.string(),
    deliveryOption: z.string().max(DELIVERY_OPTION_MAX),
    price: z.number().nonnegative(),
    currencyCode: z.string().max(CURRENCY_CODE_MAX),
    ...answered,
  }),
  /** A warning: the code is not on the service's courier list (the codes it does list come along). */
  z.object({
    state: z.literal('not-listed'),
    courierCode: z.string(),
    listed: z.array(z.string().max(COURIER_CODE_MAX)).max(MAX_COURIER_OPTIONS),
    ...answered,
  }),
  notCheckedSchema,
]);
export type CourierState = z.infer<typeof courierStateSchema>;

export const itemEnrichmentSchema = z.object({
  /** 0-based index in the order's `prescribedItems`. */
  index: z.number().int().nonnegative(),
  /** As the order holds it now; null when missing or not text. */
  dmdCode: z.string().nullable(),
  product: productStateSchema,
  stock: stockStateSchema,
  price: priceStateSchema,
});
export type ItemEnrichment = z.infer<typeof itemEnrichmentSchema>;

export const ENRICHMENT_WARNING_CODES = [
  'service.outOfStock',
  'service.unknownCode',
  'service.unknownCourier',
  'service.productMismatch',
] as const;

/** A service warning: never blocks accepting, never mixed into the offline validation problems. */
export const enrichmentWarningSchema = z.object({
  source: z.literal('service'),
  stagedOrderId: z.number().int().positive(),
  /** The item it is about; null for the order as a whole (the courier). */
  itemIndex: z.number().int().nonnegative().nullable(),
  /** Dotted body path of the field it is about, e.g. `prescribedItems.0.dmdCode`. */
  field: z.string(),
  code: z.enum(ENRICHMENT_WARNING_CODES),
  text: z.string(),
  /** When the answer it comes from was fetched. */
  checkedAt: isoInstant,
});
export type EnrichmentWarning = z.infer<typeof enrichmentWarningSchema>;

export const orderEnrichmentSchema = z.object({
  stagedOrderId: z.number().int().positive(),
  position: z.number().int().positive(),
  courier: courierStateSchema,
  items: z.array(itemEnrichmentSchema),
  /** The order's value at the service's prices, when every item is priced in one currency. */
  total: z.object({ totalPrice: z.number().nonnegative(), currencyCode: z.string() }).nullable(),
  warnings: z.array(enrichmentWarningSchema),
});
export type OrderEnrichment = z.infer<typeof orderEnrichmentSchema>;

const count = z.number().int().nonnegative();

export const enrichmentCountsSchema = z.object({
  /** Staged orders of the batch (accepted ones are not checked again). */
  orders: count,
  items: count,
  /** Distinct valid dm+d codes. */
  codes: count,
  codesFound: count,
  codesUnknown: count,
  codesOutOfStock: count,
  itemsOutOfStock: count,
  itemsPriced: count,
  /** Items whose product, stock or price is not known (offline, signed out, service error, bad code…). */
  itemsNotChecked: count,
  courierCodes: count,
  courierCodesNotListed: count,
  /** Orders whose courier could not be checked. */
  ordersCourierNotChecked: count,
  /**
   * Items and orders' couriers whose latest check failed while an earlier answer is kept (shown with its own
   * time); not in the two counts above. Summaries stored before this count read as 0.
   */
  earlierAnswers: count.default(0),
  ordersWithWarnings: count,
  warnings: count,
});
export type EnrichmentCounts = z.infer<typeof enrichmentCountsSchema>;

export const enrichmentRunSchema = z.object({
  batchId: z.number().int().positive(),
  environmentId: z.string(),
  startedAt: isoInstant,
  finishedAt: isoInstant,
  /** `partial`: some lookups could not be made or answered (see `notChecked`); `cancelled` by the admin. */
  outcome: z.enum(['complete', 'partial', 'cancelled']),
  /** The main reason part of the batch was not checked, when it was not all checked. */
  notChecked: lookupFailureSchema.nullable(),
  counts: enrichmentCountsSchema,
  /** HTTP requests this run made (codes shared by many orders are asked once). */
  calls: count,
  /** Answers younger than the reuse window, taken from the store instead of asked again. */
  reused: count,
  /**
   * The batch's last position when the check (or its last refresh) planned its questions: orders appended after it
   * (live intake's batch of the day) are checked by a refresh of just those (`refreshAppended`). Absent in runs
   * stored before it was kept.
   */
  checkedThrough: count.optional(),
  /** One or two sentences for the admin. */
  message: z.string(),
});
export type EnrichmentRun = z.infer<typeof enrichmentRunSchema>;

export const enrichmentProgressSchema = z.object({
  environmentId: z.string(),
  batchId: z.number().int().positive(),
  state: z.enum(['running', 'finished']),
  /** dm+d codes (and the courier list) done, of `total`. */
  done: count,
  total: count,
  calls: count,
});
export type EnrichmentProgress = z.infer<typeof enrichmentProgressSchema>;

export const batchEnrichmentSchema = z.object({
  batchId: z.number().int().positive(),
  /** The last finished check of this batch; null when it was never checked. */
  run: enrichmentRunSchema.nullable(),
  /** A check running now. */
  progress: enrichmentProgressSchema.nullable(),
  /** The orders asked for, read from stored answers (no service call). */
  orders: z.array(orderEnrichmentSchema),
  /** With `onlyWarnings`: how many staged orders of the batch have service warnings (for paging). */
  total: z.number().int().nonnegative().optional(),
});
export type BatchEnrichment = z.infer<typeof batchEnrichmentSchema>;
