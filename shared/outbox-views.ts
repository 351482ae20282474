import { z } from 'zod';
import { orderStateSchema } from './order-views.js';

/** What the UI sees of the submitter: its state and progress per environment, and what needs a person. */

const isoTime = z.string().min(1).max(40);

/** The submitter's state for one environment. */
export const outboxStateSchema = z.enum(['idle', 'sending', 'paused', 'sign-in-required', 'service-unavailable']);

export const outboxProgressSchema = z.object({
  environmentId: z.string(),
  state: outboxStateSchema,
  /** Orders per local state (every state present). */
  counts: z.record(orderStateSchema, z.number().int().nonnegative()),
  /**
   * Orders in no attention state whose lookups need a person (not found at the service, or listed there under other
   * ids): they need a person too. Absent from cores before it.
   */
  notedOutsideAttention: z.number().int().nonnegative().optional(),
  /** Creates per second over the last few seconds. */
  ordersPerSecond: z.number().nonnegative(),
  /** Why the outbox is paused or blocked, in a sentence. */
  message: z.string().nullable(),
  /**
   * With `service-unavailable`: waiting will not end it, the environment's settings or the service's certificate
   * must change (`message` says which). Absent otherwise, and from cores before it.
   */
  needsSettings: z.literal(true).optional(),
  /**
   * With `service-unavailable`: the service (or something in front of it) refuses every request with 403, rather
   * than not answering (`message` says so). Absent otherwise, and from cores before it.
   */
  accessRefused: z.literal(true).optional(),
  /**
   * The batches last sent from, newest first: each one's orders per state and its own rate (issue #13: "this
   * batch's N of M" beside the environment's whole history). Absent from cores before it.
   */
  batches: z
    .array(
      z.object({
        batchId: z.number().int().positive(),
        fileName: z.string().max(500).nullable(),
        counts: z.record(orderStateSchema, z.number().int().nonnegative()),
        ordersPerSecond: z.number().nonnegative(),
      }),
    )
    .max(10)
    .optional(),
  /** When the next retry or probe is due (ISO), when the outbox waits for one; null or absent otherwise. */
  nextAttemptAt: isoTime.nullable().optional(),
  /**
   * Requests waiting on a slow service: how many have been in flight longer than 5 s, the longest wait, and how
   * many request slots (the environment's concurrency) there are; null or absent when none is that slow.
   */
  slow: z
    .object({
      requests: z.number().int().positive(),
      longestMs: z.number().int().nonnegative(),
      slots: z.number().int().positive(),
    })
    .nullable()
    .optional(),
});
export type OutboxProgressView = z.infer<typeof outboxProgressSchema>;

/** Something a person should look at (one event per condition, not per retry), for notifications. */
export const attentionSchema = z.object({
  environmentId: z.string(),
  kind: z.string().min(1).max(60),
  message: z.string(),
  orderIds: z.array(z.number().int()),
  at: isoTime,
  /**
   * The order concerned, for the screen to name it as the Orders screen does (its clinic order id in full, with
   * its clinic) and link to it; `detail` is what happened, unmasked. `message` masks the id for the OS notification.
   */
  order: z
    .object({
      id: z.number().int(),
      clinicCode: z.string(),
      clinicOrderId: z.string(),
      detail: z.string(),
    })
    .optional(),
});
export type AttentionView = z.infer<typeof attentionSchema>;
