import { z } from 'zod';

/** Remote status texts in their usual order. The service may send others: they are kept and shown as they are. */
export const KNOWN_ORDER_STATUSES = [
  'Waiting Payment Success',
  'Payment Failed',
  'Waiting Clinical Check',
  'Prescription at Pharmacy',
  'Prescription Dispatched',
  'Prescription Processed',
  'Cancelled',
] as const;
export type KnownOrderStatus = (typeof KNOWN_ORDER_STATUSES)[number];

/** Statuses after which the pharmacy will not accept a cancel. */
export const DISPATCHED_STATUSES: readonly string[] = ['Prescription Dispatched', 'Prescription Processed'];

/** Every field is nullable; pharmacyOrderId arrives as a string (or a number from some deployments). */
export const statusRecordSchema = z.object({
  clinicOrderId: z.string().nullish(),
  pharmacyOrderId: z
    .union([z.string(), z.number().int()])
    .nullish()
    .transform((id) => (id === null || id === undefined ? null : String(id))),
  orderStatus: z.string().nullish(),
  dispatchDate: z.string().nullish(),
  trackingId: z.string().nullish(),
  cancelReason: z.string().nullish(),
});
export type StatusRecord = z.output<typeof statusRecordSchema>;

export const statusRecordListSchema = z.array(statusRecordSchema);

export function isKnownStatus(status: string | null | undefined): status is KnownOrderStatus {
  return (KNOWN_ORDER_STATUSES as readonly string[]).includes(status ?? '');
}
