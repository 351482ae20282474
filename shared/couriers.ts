import { z } from 'zod';

/** One line of `GET /api/v2/CourierService/price-check`. */
export const courierOptionSchema = z.object({
  courierCode: z.union([z.string(), z.number().int()]).transform(String),
  deliveryOption: z.string(),
  price: z.number().nonnegative(),
  currencyCode: z.string(),
});
export type CourierOption = z.output<typeof courierOptionSchema>;
export const courierListSchema = z.array(courierOptionSchema);
