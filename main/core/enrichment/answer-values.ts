import { z } from 'zod';
import { courierOptionSchema } from '../../../shared/couriers.js';
import { productInfoSchema } from '../../../shared/enrichment-views.js';

/**
 * What is stored of each kind of answer (`service_answers.value`), parsed again on the way out: a row written by
 * an older release or damaged on disk reads as "not checked", never as a wrong answer.
 */

/** Product search for one dm+d code, kept to the products whose code is exactly that one (empty: unknown code). */
export const productAnswerSchema = z.object({ products: z.array(productInfoSchema) });
export type ProductAnswer = z.infer<typeof productAnswerSchema>;

export const stockAnswerSchema = z.object({ inStock: z.boolean() });
export type StockAnswer = z.infer<typeof stockAnswerSchema>;

export const priceAnswerSchema = z.object({
  totalPacks: z.number().int().positive(),
  unitPrice: z.number().nonnegative(),
  totalPrice: z.number().nonnegative(),
  currencyCode: z.string(),
});
export type PriceAnswer = z.infer<typeof priceAnswerSchema>;

export const couriersAnswerSchema = z.object({ options: z.array(courierOptionSchema) });
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
