import { z } from 'zod';
import { auditChainReportSchema, auditEntryViewSchema } from './log-views.js';

/**
 * The submission log's calls and events (spread into `calls` and `events` in contract.ts): search, verify, export,
 * and the progress and cancel of the long ones (a whole-chain verify, an export).
 */

const environmentIdSchema = z.string().min(1).max(40);
const idSchema = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);

/** What the log screen filters by; an export takes the same filters, so it holds what the screen shows. */
export const logFilterSchema = z
  .object({
    environmentId: environmentIdSchema.optional(),
    orderId: idSchema.optional(),
    /** An action or its prefix: `order.` gives every order action. */
    action: z.string().min(1).max(64).optional(),
    /**
     * Text in the clinic code, clinic order id or the values of the details (case-insensitive; not the action, which
     * `action` filters, nor the state, status and operation words most entries hold), found through a trigram index, and
     * read entry by entry only where the index has not caught up (at most a window a call: `partial`). For an
     * order's entries by its id, use `clinicOrderId`.
     */
    search: z.string().trim().min(1).max(100).optional(),
    /** The entries of the orders with exactly this clinic order id, found through indexes (issue #16). */
    clinicOrderId: z.string().trim().min(1).max(64).optional(),
  })
  .strict();
export type LogFilter = z.infer<typeof logFilterSchema>;

/**
 * A one-time download of an export in browser mode: the core wrote it to a private file, and the bridge streams it
 * once to `GET /downloads/<id>` (main/bridge/export-downloads.ts). The id (256 random bits) is the capability: it is
 * only ever handed to a page that presented the launch secret.
 */
export const DOWNLOAD_ID_PATTERN = /^[A-Za-z0-9_-]{43}$/;
export const DOWNLOAD_PATH_PREFIX = '/downloads/';

const exportedSchema = z.object({
  format: z.enum(['csv', 'jsonl']),
  masked: z.boolean(),
  count: z.number().int().nonnegative(),
  /** The file's name (never its folder). */
  fileName: z.string().min(1).max(255),
  /** Whether screen filters narrowed it (false: the whole log). */
  filtered: z.boolean(),
});

/** A whole-chain check stopped by `log.cancel`: how far it got, nothing found wrong up to there. */
export const verifyCancelledSchema = z
  .object({
    ok: z.literal(false),
    cancelled: z.literal(true),
    checked: z.number().int().nonnegative(),
    total: z.number().int().nonnegative(),
  })
  .strict();

/** The long log operations: one of each at a time. */
export const logOperationSchema = z.enum(['export', 'verify']);
export type LogOperation = z.infer<typeof logOperationSchema>;

export const logCalls = {
  // The audit log: newest first (keyset paging by seq), verify the chain, export.
  'log.list': {
    input: logFilterSchema
      .extend({ beforeSeq: idSchema.optional(), limit: z.number().int().min(1).max(500).optional() })
      .strict(),
    /**
     * `partial`: the page stopped where the call's read of the log ended rather than when it was full (a search no
     * index answers reads a window of entries per call); `nextBeforeSeq` goes on from there.
     */
    output: z.object({
      entries: z.array(auditEntryViewSchema),
      nextBeforeSeq: z.number().int().nullable(),
      partial: z.boolean(),
    }),
  },
  /**
   * The audit chain checked: what was appended since the last check found it whole (issue #16), or with `full`
   * the whole chain again (a change inside the already-checked prefix is found only that way), page by page with
   * `log.progress` and stopped by `log.cancel` (then `cancelled`).
   */
  'log.verify': {
    input: z.object({ full: z.boolean().optional() }).strict(),
    output: z.union([auditChainReportSchema, verifyCancelledSchema]),
  },
  /**
   * The log (or the entries matching `filter`) written as CSV or JSON Lines, streamed page by page, never held as
   * one text. In the desktop app the admin chooses where in a native save dialog (`saved`, or `cancelled` when the
   * dialog is closed); elsewhere the core writes a private file and the page downloads it once (`download`). Its
   * progress is `log.progress`; `log.cancel` stops it (`cancelled`, nothing left behind). When `filter` matches no
   * entry nothing is written and no save dialog opens (`empty`): a file of column names only reads as an export.
   */
  'log.export': {
    input: z
      .object({ format: z.enum(['csv', 'jsonl']), unmask: z.boolean().optional(), filter: logFilterSchema.optional() })
      .strict(),
    output: z.discriminatedUnion('outcome', [
      exportedSchema.extend({ outcome: z.literal('saved') }).strict(),
      exportedSchema
        .extend({ outcome: z.literal('download'), downloadId: z.string().regex(DOWNLOAD_ID_PATTERN) })
        .strict(),
      z.object({ outcome: z.literal('cancelled') }).strict(),
      z.object({ outcome: z.literal('empty') }).strict(),
    ]),
  },
  /** Stops a running export or whole-chain verify; `running` says whether one was. */
  'log.cancel': {
    input: z.object({ operation: logOperationSchema }).strict(),
    output: z.object({ running: z.boolean() }).strict(),
  },
} as const;

export const logEvents = {
  /** How far a running export or whole-chain verify is: entries done, of `total` when it is known beforehand. */
  'log.progress': z
    .object({
      operation: logOperationSchema,
      done: z.number().int().nonnegative(),
      total: z.number().int().nonnegative().nullable(),
      finished: z.boolean(),
    })
    .strict(),
} as const;
