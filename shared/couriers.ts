import { z } from 'zod';
import { cutTextSchema } from './cut-text.js';
import { CURRENCY_CODE_MAX } from './products.js';

/**
 * The most kept of a courier option's texts and of the courier list (docs/security.md, finding 70): a batch check
 * keeps the list and shows the codes it lists in the view of every order whose courier is not on it. A code longer
 * than `COURIER_CODE_MAX` is no order's (an order's is at most 20): such an option is not kept at all.
 */
export const COURIER_CODE_MAX = 40;
export const DELIVERY_OPTION_MAX = 100;
export const MAX_COURIER_OPTIONS = 100;

/** One line of `GET /api/v2/CourierService/price-check`. */
export const courierOptionSchema = z.object({
  courierCode: z.union([z.string(), z.number().int()]).transform(String),
  deliveryOption: cutTextSchema(DELIVERY_OPTION_MAX),
  price: z.number().nonnegative(),
  currencyCode: cutTextSchema(CURRENCY_CODE_MAX),
});
export type CourierOption = z.output<typeof courierOptionSchema>;
export const courierListSchema = z.array(courierOptionSchema);

/** The options of a courier list a check keeps: codes an order can have, the first `MAX_COURIER_OPTIONS` of them. */
export function keptCourierOptions(options: readonly CourierOption[]): CourierOption[] {
  return options.filter((option) => option.courierCode.length <= COURIER_CODE_MAX).slice(0, MAX_COURIER_OPTIONS);
}
