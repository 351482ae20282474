import { z } from 'zod';
import { cutText } from './cut-text.js';

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

/**
 * "cancelled", "CANCELLED ", "Canceled" and "Prescription  dispatched" are the known texts: compared without case or
 * spacing.
 */
const CANONICAL_STATUS = new Map<string, KnownOrderStatus>([
  ...KNOWN_ORDER_STATUSES.map((status) => [status.toLowerCase(), status] as const),
  // The American spelling, as a service written in the US may send it: left as it came, a cancel it confirms was
  // never seen as done, and the order watched for good.
  ['canceled', 'Cancelled'],
]);

/**
 * A known status in another case or spacing, as the known text (so the poller, the cancel check and the history
 * agree with the service); any other text exactly as it came, to be shown as it is.
 */
export function canonicalStatus(status: string): string {
  return CANONICAL_STATUS.get(status.trim().replace(/\s+/g, ' ').toLowerCase()) ?? status;
}

/** Text, or a number the service sent where text belongs (a numeric clinic order id or tracking id), as its digits. */
const textOrNumber = z
  .union([z.string(), z.number()])
  .nullable()
  .transform((value) => (typeof value === 'number' ? String(value) : value));

/**
 * The most kept of each text of a record (finding 68): the store keeps them and the order views carry them, whose
 * contract allows no more (`orderSummarySchema`). A service's answer may be 10 MB; kept whole, a status one
 * character past the view's bound made every `orders.list` page holding that order an answer outside the contract,
 * and one that sent a new megabyte of status, date or tracking id each poll wrote it into a history row each time,
 * for good (88 MB of store in 20 answers for one order). Real ones are a few dozen characters: a longer one is kept
 * cut, not refused, so one odd field never makes every status of the service unreadable.
 */
export const STATUS_TEXT_MAX = { orderStatus: 200, dispatchDate: 40, trackingId: 100, cancelReason: 500 } as const;

/**
 * A field nothing depends on: anything but text or a number is taken as absent rather than failing the record; text
 * cut to `max` characters.
 */
const looseText = (max = Infinity) =>
  z
    .unknown()
    .transform((value) =>
      typeof value === 'string' ? cutText(value, max) : typeof value === 'number' ? String(value) : null,
    )
    .optional();

/**
 * Every field is nullable; pharmacyOrderId arrives as a string (or a number from some deployments). The fields a
 * lookup matches on (clinicOrderId, pharmacyOrderId) take text or a number and nothing else, without surrounding
 * spaces: a record that cannot say which order it is must not be read as matching.
 */
export const statusRecordSchema = z.object({
  // Without the spaces a fixed-width column pads them with ("A-1   "): the same id, which matched no order before.
  clinicOrderId: textOrNumber.transform((id) => (typeof id === 'string' ? id.trim() : id)).optional(),
  pharmacyOrderId: z
    .union([z.string(), z.number().int()])
    .nullish()
    .transform((id) => (id === null || id === undefined ? null : String(id).trim())),
  orderStatus: textOrNumber
    .transform((status) =>
      typeof status === 'string' ? cutText(canonicalStatus(status), STATUS_TEXT_MAX.orderStatus) : status,
    )
    .optional(),
  dispatchDate: looseText(STATUS_TEXT_MAX.dispatchDate),
  trackingId: looseText(STATUS_TEXT_MAX.trackingId),
  cancelReason: looseText(STATUS_TEXT_MAX.cancelReason),
  /**
   * Not in the contract's record, but a service may say whose order it is; kept only so that a record naming
   * another clinic is never read as this clinic's order (clinic order ids are unique per clinic, not overall).
   */
  // Compared with ours only, never kept: a cut one could equal ours where the whole did not.
  clinicCode: looseText(),
});
export type StatusRecord = z.output<typeof statusRecordSchema>;

/**
 * Whether a record says it is another clinic's order: it gives a clinic code, and not this one (compared without
 * case or surrounding spaces). A service that ignores the clinicCode filter lists another clinic's order under the
 * same clinic order id; adopting its pharmacy id marked an order created that was never sent.
 */
export function namesAnotherClinic(record: Pick<StatusRecord, 'clinicCode'>, clinicCode: string): boolean {
  const given = record.clinicCode?.trim();
  return Boolean(given) && given!.toLowerCase() !== clinicCode.trim().toLowerCase();
}

const RECORD_KEYS = ['orderStatus', 'pharmacyOrderId', 'clinicOrderId'];
const LIST_WRAPPERS = ['data', 'items', 'results', 'orders', 'value'];

/**
 * A list of status records. Some services answer a lookup that finds one order with the record itself, or wrap the
 * list (`{"data": [...]}`): read as the list they mean. Refused as a wrong shape, every lookup of such a service
 * failed, orders in doubt stayed so and tracking stopped, though every answer was a 200.
 */
export const statusRecordListSchema = z.preprocess((raw) => {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return raw;
  const keys = Object.keys(raw);
  if (keys.some((key) => RECORD_KEYS.includes(key))) return [raw];
  const lists = keys.filter(
    (key) => LIST_WRAPPERS.includes(key) && Array.isArray((raw as Record<string, unknown>)[key]),
  );
  return lists.length === 1 ? (raw as Record<string, unknown>)[lists[0]!] : raw;
}, z.array(statusRecordSchema));

export function isKnownStatus(status: string | null | undefined): status is KnownOrderStatus {
  return (KNOWN_ORDER_STATUSES as readonly string[]).includes(status ?? '');
}
