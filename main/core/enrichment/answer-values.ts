import { z } from 'zod';
import { courierOptionSchema, keptCourierOptions } from '../../../shared/couriers.js';
import { cutTextSchema } from '../../../shared/cut-text.js';
import type { ProductInfo } from '../../../shared/enrichment-views.js';
import { CURRENCY_CODE_MAX, MAX_PRODUCTS_PER_CODE, PRODUCT_TEXT_MAX } from '../../../shared/products.js';

/**
 * What is stored of each kind of answer (`service_answers.value`), parsed again on the way out: a row written by
 * an older release or damaged on disk reads as "not checked", never as a wrong answer.
 */

/**
 * Texts cut and lists shortened to the views' bounds (shared/products.ts, finding 70) both as an answer is stored
 * (lookup-run.ts parses it with these) and as a row is read, so one kept whole by an earlier version reads cut too.
 */
const storedProductSchema = z.object({
  productId: z.number().int().nonnegative(),
  name: cutTextSchema(PRODUCT_TEXT_MAX.name),
  packSize: z.number().nullable(),
  form: cutTextSchema(PRODUCT_TEXT_MAX.form).nullable(),
  strength: cutTextSchema(PRODUCT_TEXT_MAX.strength).nullable(),
}) satisfies z.ZodType<ProductInfo>;

/** The first `max` entries of a list, before each is parsed (an old row may hold 100,000). */
const firstOf = <T extends z.ZodType>(element: T, max: number) =>
  z.preprocess((list) => (Array.isArray(list) ? list.slice(0, max) : list), z.array(element));

/** Product search for one dm+d code, kept to the products whose code is exactly that one (empty: unknown code). */
export const productAnswerSchema = z.object({ products: firstOf(storedProductSchema, MAX_PRODUCTS_PER_CODE) });
export type ProductAnswer = z.infer<typeof productAnswerSchema>;

export const stockAnswerSchema = z.object({ inStock: z.boolean() });
export type StockAnswer = z.infer<typeof stockAnswerSchema>;

export const priceAnswerSchema = z.object({
  totalPacks: z.number().int().positive(),
  unitPrice: z.number().nonnegative(),
  totalPrice: z.number().nonnegative(),
  currencyCode: cutTextSchema(CURRENCY_CODE_MAX),
});
export type PriceAnswer = z.infer<typeof priceAnswerSchema>;

export const couriersAnswerSchema = z.object({ options: z.array(courierOptionSchema).transform(keptCourierOptions) });
export type CouriersAnswer = z.infer<typeof couriersAnswerSchema>;

/** The one courier-list answer per environment is stored under this key. */
export const COURIERS_KEY = '*';

/** Most packs priced for one item (the contract's `products.price` takes up to 10,000). */
export const MAX_PRICED_PACKS = 10_000;

/** The price of N packs of a code is its own question: `<code>x<packs>`. */
export const priceKey = (dmdCode: string, packs: number) => `${dmdCode}x${packs}`;

export interface PacksToPrice {
  packs: number;
  /** `pack`: the item says how many packs; `quantity`: quantity ÷ the product's pack size, rounded up. */
  from: 'pack' | 'quantity';
}

/**
 * How many packs an item's price is asked for: its `pack` count when given; otherwise its quantity over the
 * product's pack size (when the service gives one pack size for the code), rounded up; otherwise none.
 */
export function packsToPrice(
  item: { pack: number | null; quantity: number | null },
  products: readonly { packSize: number | null }[],
): PacksToPrice | undefined {
  if (item.pack !== null && item.pack >= 1 && item.pack <= MAX_PRICED_PACKS) return { packs: item.pack, from: 'pack' };
  if (item.quantity === null || item.quantity < 1) return undefined;
  const sizes = new Set(products.map((product) => product.packSize).filter((size) => size !== null && size > 0));
  if (sizes.size !== 1) return undefined;
  const [size] = [...sizes] as number[];
  const packs = Math.ceil(item.quantity / size!);
  return packs >= 1 && packs <= MAX_PRICED_PACKS ? { packs, from: 'quantity' } : undefined;
}
