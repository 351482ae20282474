import { z } from 'zod';
import { dmdCodeSchema } from './dmd.js';

/** Product lookups (chosen shapes where the public docs are silent). */
export const productSchema = z.object({
  productId: z.number().int().nonnegative(),
  dmdCode: dmdCodeSchema,
  name: z.string(),
  packSize: z.number().nullish(),
  form: z.string().nullish(),
  strength: z.string().nullish(),
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
  currencyCode: z.string(),
});
export type PriceCheck = z.output<typeof priceCheckSchema>;

/** Identify a product by its id, its dm+d code, or both. */
export const productRefSchema = z
  .object({ productId: z.number().int().nonnegative().optional(), dmdCode: dmdCodeSchema.optional() })
  .refine((ref) => ref.productId !== undefined || ref.dmdCode !== undefined, {
    message: 'give a productId or a dmdCode',
  });
export type ProductRef = z.output<typeof productRefSchema>;
