import { z } from 'zod';
import { cutTextSchema } from './cut-text.js';
import { dmdCodeSchema } from './dmd.js';

/**
 * The most kept of a product's texts, and of the products one dm+d code lists (docs/security.md, finding 70). A
 * service's answer may be 10 MB, and a batch check keeps one per code and repeats it in the view of every item with
 * that code: one name of megabytes made the preview's page of 50 orders too large to carry, which ended the core
 * host. dm+d names run to 255 characters and a code lists a few packs: longer texts are kept cut, later products not.
 */
export const PRODUCT_TEXT_MAX = { name: 300, form: 100, strength: 100 } as const;
export const MAX_PRODUCTS_PER_CODE = 20;
/** ISO 4217 codes are three letters: a longer one is kept cut. */
export const CURRENCY_CODE_MAX = 10;

/** Product lookups (chosen shapes where the public docs are silent). */
export const productSchema = z.object({
  productId: z.number().int().nonnegative(),
  dmdCode: dmdCodeSchema,
  name: cutTextSchema(PRODUCT_TEXT_MAX.name),
  packSize: z.number().nullish(),
  form: cutTextSchema(PRODUCT_TEXT_MAX.form).nullish(),
  strength: cutTextSchema(PRODUCT_TEXT_MAX.strength).nullish(),
});
export type Product = z.output<typeof productSchema>;
export const productListSchema = z.array(productSchema);

export const stockCheckSchema = z.object({ inStock: z.boolean() });
export type StockCheck = z.infer<typeof stockCheckSchema>;

export const priceCheckSchema = z.object({
  productId: z.number().int().nonnegative().nullish(),
  dmdCode: dmdCodeSchema.nullish(),
  totalPacks: z.number().int().positive(),
  unitPrice: z.number().nonnegative(),
  totalPrice: z.number().nonnegative(),
  currencyCode: cutTextSchema(CURRENCY_CODE_MAX),
});
export type PriceCheck = z.output<typeof priceCheckSchema>;

/** Identify a product by its id, its dm+d code, or both. */
export const productRefSchema = z
  .object({ productId: z.number().int().nonnegative().optional(), dmdCode: dmdCodeSchema.optional() })
  .refine((ref) => ref.productId !== undefined || ref.dmdCode !== undefined, {
    message: 'give a productId or a dmdCode',
  });
export type ProductRef = z.output<typeof productRefSchema>;
