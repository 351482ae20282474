import { z } from 'zod';
import { auditEntryViewSchema } from './log-views.js';
import { STATUS_TEXT_MAX } from './status.js';

/**
 * What the UI sees of orders: plain records with identifiers and operational fields, never request bodies
 * (patient data), tokens or secrets. The core maps its store records onto these and the dispatch checks every
 * answer against them. One exception, asked for by name: an order's original source text (`orderSourceSchema`,
 * the `orders.source` call), which the detail view shows on request. Searching by patient surname returns these
 * same views: the surname is never in them.
 */

const isoTime = z.string().min(1).max(40);
const nullableText = (max: number) => z.string().max(max).nullable();

/** The local order states; main/core/store/order-state.ts documents each and the migrations spell them out. */
export const ORDER_STATE_NAMES = [
  'ready',
  'queued',
  'sending',
  'created',
  'rejected',
  'in_doubt',
  'held',
  'withdrawn',
  'cancel_requested',
  'cancel_sent',
  'cancelled',
  'cancel_refused',
] as const;
export const orderStateSchema = z.enum(ORDER_STATE_NAMES);

/**
 * The last error of a held or rejected order a person released whose send once went unanswered: it is `in_doubt`,
 * looked up at the service before it is sent again (main/core/outbox/outbox.ts `retryNow`).
 */
export const RELEASED_TO_LOOK_UP_MESSAGE =
  'released by a person: looked up at the service first, and sent again only if the service does not have it';
export type OrderStateName = z.infer<typeof orderStateSchema>;

export const orderSummarySchema = z.object({
  id: z.number().int().positive(),
  batchId: z.number().int().positive(),
  environmentId: z.string(),
  clinicCode: z.string(),
  clinicOrderId: z.string(),
  route: z.enum(['v1', 'v2', 'hl7']),
  state: orderStateSchema,
  pharmacyOrderId: z.number().int().positive().nullable(),
  /** The service's status text as it came (unknown texts included). */
  remoteStatus: nullableText(STATUS_TEXT_MAX.orderStatus),
  remoteStatusAt: isoTime.nullable(),
  dispatchDate: nullableText(STATUS_TEXT_MAX.dispatchDate),
  trackingId: nullableText(STATUS_TEXT_MAX.trackingId),
  /** The courier the order was sent with (code lists' v1 text), when its body says: for a tracking link. */
  courierCode: nullableText(20).optional(),
  lastError: z
    .object({
      kind: z.enum(['retryable', 'in-doubt', 'auth', 'rejected']),
      message: z.string().max(2000),
      field: nullableText(200),
    })
    .nullable(),
  /** Create attempts so far. */
  attempts: z.number().int().nonnegative(),
  nextAttemptAt: isoTime.nullable(),
  /**
   * Present only while the order is flagged as no longer found at the service (main/core/tracking/lost-at-service.ts):
   * the lookups in a row that did not find it, since the first of them, flagged at. Its state is unchanged by it.
   */
  notFoundAtService: z.object({ lookups: z.number().int().positive(), since: isoTime, flaggedAt: isoTime }).optional(),
  /**
   * Present only while the service's lookup lists the order under ids that may not be its own
   * (main/core/tracking/listed-differently.ts): the record's ids, and when it was first listed so. Never with
   * notFoundAtService; its state is unchanged by it.
   */
  listedDifferently: z.object({ clinicOrderId: z.string(), pharmacyOrderId: nullableText(40), at: isoTime }).optional(),
  createdAt: isoTime,
  updatedAt: isoTime,
});
export type OrderSummary = z.infer<typeof orderSummarySchema>;

export const orderItemViewSchema = z.object({
  /** Digits, exactly (up to 18). */
  dmdCode: z.string().regex(/^\d{1,18}$/),
  productId: z.number().int().nullable(),
  medication: z.string(),
  quantity: z.number().int(),
});

export const attemptViewSchema = z.object({
  id: z.number().int(),
  operation: z.enum(['create', 'lookup', 'status', 'cancel']),
  startedAt: isoTime,
  latencyMs: z.number().int().nonnegative().nullable(),
  httpStatus: z.number().int().nullable(),
  outcome: z.enum(['ok', 'retryable', 'in-doubt', 'auth', 'rejected']),
  errorMessage: z.string().nullable(),
  remoteId: z.string().nullable(),
});

export const statusHistoryViewSchema = z.object({
  id: z.number().int(),
  status: z.string(),
  dispatchDate: z.string().nullable(),
  trackingId: z.string().nullable(),
  observedAt: isoTime,
});

export const cancellationViewSchema = z.object({
  id: z.number().int(),
  reason: z.string(),
  state: z.enum(['requested', 'sent', 'cancelled', 'refused']),
  requestedAt: isoTime,
  sentAt: isoTime.nullable(),
  /** The service's answer (e.g. why it refused). */
  resultMessage: z.string().nullable(),
});

/**
 * Where an order came from: its batch's file and, when it went through staging, its place in that file (CSV lines
 * or HL7 message and control id). Identifiers only: the original text is patient data and comes from
 * `orders.source`, on request.
 */
export const orderOriginSchema = z.object({
  batchId: z.number().int().positive(),
  fileName: z.string().min(1).max(255),
  format: z.enum(['csv', 'hl7', 'json']),
  /** When the file was imported. */
  importedAt: isoTime,
  /** The order's number among the file's orders (1-based); null when no staged record of it exists. */
  position: z.number().int().positive().nullable(),
  /** CSV: the physical lines of the order's records (one per item), in file order. */
  lines: z.array(z.number().int().positive()).max(10_000),
  /** HL7: the message's index in the file (1-based) and its control id (MSH-10). */
  message: z.number().int().positive().nullable(),
  controlId: nullableText(200),
  /** Whether the original text is kept (`orders.source` gives it): CSV records or the HL7 message. */
  sourceKept: z.boolean(),
  /** Edited in the app before it was accepted (the source shows the file as it was). */
  edited: z.boolean(),
});
export type OrderOrigin = z.infer<typeof orderOriginSchema>;

/**
 * The original text of an order (patient data: shown in the detail view on request, never in lists, logs or
 * events): its CSV records with their line numbers under the file's header, or its HL7 message a segment a line.
 */
export const orderSourceSchema = z.discriminatedUnion('format', [
  z.object({
    format: z.literal('csv'),
    fileName: z.string(),
    header: z.object({ line: z.number().int().positive().nullable(), text: z.string() }).nullable(),
    records: z.array(z.object({ line: z.number().int().positive().nullable(), text: z.string() })).min(1),
  }),
  z.object({
    format: z.literal('hl7'),
    fileName: z.string(),
    message: z.number().int().positive().nullable(),
    segments: z.array(z.string()).min(1),
  }),
]);
export type OrderSource = z.infer<typeof orderSourceSchema>;

export const orderDetailSchema = z.object({
  order: orderSummarySchema,
  origin: orderOriginSchema,
  items: z.array(orderItemViewSchema),
  attempts: z.array(attemptViewSchema),
  statusHistory: z.array(statusHistoryViewSchema),
  cancellations: z.array(cancellationViewSchema),
  audit: z.array(auditEntryViewSchema),
});
export type OrderDetail = z.infer<typeof orderDetailSchema>;

export const cancelResultSchema = z.object({
  orderId: z.number().int(),
  clinicOrderId: z.string().nullable(),
  outcome: z.enum(['withdrawn', 'cancel-requested', 'refused']),
  reason: z.string().optional(),
});
