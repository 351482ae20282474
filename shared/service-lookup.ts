import { z } from 'zod';
import { serviceErrorSchema } from './errors.js';

/**
 * Looking orders up on the service, including ones this install never sent: by pharmacy order id, by clinic
 * order id (with or without the clinic code), or by dispatch date range. The date-range endpoint takes at most a
 * 3-day span, so a longer range is asked for in consecutive windows (capped, so one search cannot flood it).
 */

/** Longest range one lookup may cover, in days (split into 3-day windows: at most 8 calls). */
export const MAX_LOOKUP_RANGE_DAYS = 31;

/**
 * Most orders one lookup returns: what a person can read on one screen. A busy supplier's dispatches over 31 days
 * (tens of thousands), or a hostile service's answers (10 MB each), would otherwise reach the page whole and grow with
 * the service's orders; past this the lookup stops asking and says so (`truncated`): narrow the range.
 */
export const MAX_LOOKUP_RECORDS = 1_000;

const isoDay = z.iso.date().max(10);

export const orderLookupQuerySchema = z.discriminatedUnion('by', [
  z.object({ by: z.literal('pharmacyOrderId'), pharmacyOrderId: z.number().int().positive() }).strict(),
  z
    .object({
      by: z.literal('clinicOrderId'),
      clinicOrderId: z.string().trim().min(1).max(64),
      clinicCode: z.string().trim().min(1).max(64).optional(),
    })
    .strict(),
  z.object({ by: z.literal('dispatchDate'), startDate: isoDay, endDate: isoDay }).strict(),
]);
export type OrderLookupQuery = z.infer<typeof orderLookupQuerySchema>;

/** One status record as the service sent it, and the local order it matches, if this install sent it. */
export const lookedUpOrderSchema = z.object({
  clinicOrderId: z.string().nullable(),
  pharmacyOrderId: z.string().nullable(),
  orderStatus: z.string().nullable(),
  dispatchDate: z.string().nullable(),
  trackingId: z.string().nullable(),
  cancelReason: z.string().nullable(),
  localOrderId: z.number().int().nullable(),
  /** The courier, when the order was sent from this app and names one (for a tracking link). */
  courierCode: z.string().max(20).nullable().optional(),
});
export type LookedUpOrder = z.infer<typeof lookedUpOrderSchema>;

export const orderLookupResultSchema = z.object({
  /** The date windows asked for (one per call), so the screen can say how the range was split. */
  windows: z.array(z.object({ startDate: z.string(), endDate: z.string() })),
  records: z.array(lookedUpOrderSchema).max(MAX_LOOKUP_RECORDS),
  /** The service listed more than MAX_LOOKUP_RECORDS: the first are shown, and later windows were not asked. */
  truncated: z.boolean(),
  /** Set when a call failed: the records of the calls before it are still shown. */
  error: serviceErrorSchema.nullable(),
});
export type OrderLookupResult = z.infer<typeof orderLookupResultSchema>;
