import { z } from 'zod';
import { boundedRecord } from './bounded-record.js';
import { DOWNLOAD_ID_PATTERN } from './log-contract.js';
import {
  acceptOutcomeSchema,
  batchViewSchema,
  editStepSchema,
  hl7SenderSchema,
  importOutcomeSchema,
  orderHistoryEntrySchema,
  routeSchema,
  savedProfileViewSchema,
  stagedCountsSchema,
  stagedOrderViewSchema,
} from './staging-views.js';

/**
 * The import and review calls of the contract (spread into `calls` in contract.ts): import a file into a staged
 * batch, page through it, fix orders, choose the route, accept, export, and keep mapping profiles.
 */

const environmentIdSchema = z.string().min(1).max(40);
const idSchema = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
/** Browser uploads travel inside one transport message (at most 1 MB), so their text is capped below that. */
export const MAX_UPLOAD_CHARS = 900_000;
const fileNameSchema = z
  .string()
  .trim()
  .min(1)
  .max(255)
  .refine((name) => !/[\\/\0]/.test(name), 'a file name, not a path');

/** A profile's mapped columns (the template has a few dozen), and the values one column's value map translates. */
const PROFILE_COLUMNS_MAX = 500;
const VALUE_MAP_MAX = 5000;

const mappingProfileInputSchema = z
  .object({
    name: z.string().trim().min(1).max(80),
    headerFingerprint: z.string().max(64).optional(),
    columns: boundedRecord(z.string().max(100), z.string().max(200), PROFILE_COLUMNS_MAX),
    /** template column → position (1-based) of the column to read where its header appears more than once. */
    columnPositions: boundedRecord(
      z.string().max(100),
      z.number().int().min(1).max(100_000),
      PROFILE_COLUMNS_MAX,
    ).optional(),
    constants: boundedRecord(z.string().max(100), z.string().max(500), PROFILE_COLUMNS_MAX),
    valueMaps: boundedRecord(
      z.string().max(100),
      boundedRecord(z.string().max(200), z.string().max(200), VALUE_MAP_MAX),
      PROFILE_COLUMNS_MAX,
    ),
    dateFormat: z.enum(['iso', 'dd/MM/yyyy', 'd/M/yy', 'dd-MMM-yyyy', 'MM/dd/yyyy']).optional(),
    hl7FieldMap: boundedRecord(z.string().max(100), z.string().max(40), PROFILE_COLUMNS_MAX).optional(),
    /** HL7: the sender whose files this profile is for (taken from `fromBatchId`'s import when absent). */
    hl7Sender: hl7SenderSchema.optional(),
  })
  .strict();

/**
 * A batch's CSV export, streamed to a file as the log's is (`log.export`): `saved` where the admin chose in the
 * desktop app's save dialog (`cancelled` when it was closed), else `download`, a one-time private file the page
 * fetches from the bridge by its id. `orders` and `rows` say what it holds.
 */
const batchExportSchema = z.discriminatedUnion('outcome', [
  z
    .object({
      outcome: z.literal('saved'),
      orders: z.number().int().nonnegative(),
      rows: z.number().int().nonnegative(),
      fileName: z.string(),
    })
    .strict(),
  z
    .object({
      outcome: z.literal('download'),
      orders: z.number().int().nonnegative(),
      rows: z.number().int().nonnegative(),
      fileName: z.string(),
      format: z.literal('csv'),
      downloadId: z.string().regex(DOWNLOAD_ID_PATTERN),
    })
    .strict(),
  z.object({ outcome: z.literal('cancelled') }).strict(),
]);
export type BatchExport = z.infer<typeof batchExportSchema>;

/** The longest text an edit writes into a cell, and the longest a find and replace may make one (batch-edits.ts). */
export const EDIT_VALUE_MAX_CHARS = 1000;

const editValueSchema = z.union([z.string().max(EDIT_VALUE_MAX_CHARS), z.number(), z.boolean(), z.null()]);

export const stagingCalls = {
  /**
   * Imports a file into a new staged batch. Give `path` (an absolute path to a regular file: Electron and the
   * bridge pass what the admin picked) or `upload` (a browser upload's name and text). `importId` names the
   * import for `import.progress` events and `import.cancel`.
   */
  'import.file': {
    input: z
      .object({
        environmentId: environmentIdSchema,
        path: z.string().min(1).max(4096).optional(),
        upload: z
          .object({ name: fileNameSchema, content: z.string().max(MAX_UPLOAD_CHARS) })
          .strict()
          .optional(),
        /** A saved profile's name, or `template`; absent: chosen by the file's header (CSV) or sender (HL7). */
        profile: z.string().trim().min(1).max(80).optional(),
        /** False: no saved profile is chosen automatically (the CSV template or a suggestion; HL7's standard map). */
        autoProfile: z.boolean().optional(),
        /** Overrides encoding detection, e.g. `windows-1252`. */
        encoding: z.string().trim().min(1).max(40).optional(),
        route: routeSchema.optional(),
        importId: z.string().min(1).max(64).optional(),
      })
      .strict()
      .refine((input) => (input.path === undefined) !== (input.upload === undefined), 'give either path or upload'),
    output: importOutcomeSchema,
  },
  'import.cancel': {
    input: z.object({ importId: z.string().min(1).max(64) }).strict(),
    output: z.object({ cancelled: z.boolean() }),
  },
  /** Newest first, `limit` of them (100 unless given); `before`: only batches older than that one (the next page). */
  'batches.list': {
    input: z
      .object({
        environmentId: environmentIdSchema.optional(),
        limit: z.number().int().min(1).max(500).optional(),
        before: idSchema.optional(),
      })
      .strict(),
    output: z.array(batchViewSchema),
  },
  /** A page of a batch's orders in file order, with bodies, problems and provenance. */
  'batches.get': {
    input: z
      .object({
        batchId: idSchema,
        offset: z.number().int().nonnegative().max(10_000_000).optional(),
        limit: z.number().int().min(1).max(500).optional(),
        onlyProblems: z.boolean().optional(),
      })
      .strict(),
    output: z.object({
      batch: batchViewSchema,
      orders: z.array(stagedOrderViewSchema),
      /** Orders matching the filter, for paging. */
      total: z.number().int().nonnegative(),
    }),
  },
  /** Edits one staged order (some fields by path, or the whole body) and re-validates it. */
  'batches.editOrder': {
    input: z
      .object({
        stagedOrderId: idSchema,
        edits: z
          .array(z.object({ path: z.string().min(1).max(200), value: editValueSchema }).strict())
          .min(1)
          .max(200)
          .optional(),
        body: boundedRecord(z.string().max(200), z.unknown(), 100).optional(),
      })
      .strict()
      .refine((input) => (input.edits === undefined) !== (input.body === undefined), 'give either edits or body'),
    output: stagedOrderViewSchema,
  },
  /**
   * Find and replace on one field across a batch's staged orders (one step of the batch's edit history: one undo
   * takes all of it back). `dryRun`: only count the orders and cells it would change; nothing is written.
   */
  'batches.replace': {
    input: z
      .object({
        batchId: idSchema,
        field: z.string().min(1).max(200),
        find: z.string().max(1000),
        replace: z.string().max(1000),
        match: z.enum(['exact', 'contains']).optional(),
        dryRun: z.boolean().optional(),
      })
      .strict(),
    output: z.object({
      changed: z.number().int().nonnegative(),
      cells: z.number().int().nonnegative(),
      counts: stagedCountsSchema,
    }),
  },
  /**
   * Takes back the batch's latest change (an edit, or a whole find and replace), or makes the earliest undone one
   * again. `step` is what was undone or redone (null: there was nothing to do). Refused for a change that touched
   * orders accepted since, and for a discarded batch.
   */
  'batches.undo': {
    input: z.object({ batchId: idSchema }).strict(),
    output: z.object({
      step: editStepSchema.nullable(),
      changed: z.number().int().nonnegative(),
      counts: stagedCountsSchema,
    }),
  },
  'batches.redo': {
    input: z.object({ batchId: idSchema }).strict(),
    output: z.object({
      step: editStepSchema.nullable(),
      changed: z.number().int().nonnegative(),
      counts: stagedCountsSchema,
    }),
  },
  /** A staged order's changes, newest first (at most 200): each cell's value before and after, when, undone or not. */
  'batches.orderHistory': {
    input: z.object({ stagedOrderId: idSchema }).strict(),
    output: z.object({ entries: z.array(orderHistoryEntrySchema) }),
  },
  /**
   * The nearest order with a problem after (`next`) or before (`previous`) a position in the file (0 before the
   * first), with its index among the orders with problems (the problems filter's position); null: none that way.
   */
  'batches.findProblem': {
    input: z
      .object({
        batchId: idSchema,
        fromPosition: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
        direction: z.enum(['next', 'previous']),
      })
      .strict(),
    output: z.object({
      found: z
        .object({
          stagedOrderId: z.number().int().positive(),
          position: z.number().int().positive(),
          problemIndex: z.number().int().nonnegative(),
        })
        .nullable(),
    }),
  },
  /**
   * Which fields of a batch's staged orders have problems, and how many (item fields as `prescribedItems.*.x`;
   * `field` null: about the order as a whole).
   */
  'batches.problemFields': {
    input: z.object({ batchId: idSchema }).strict(),
    output: z.object({
      fields: z.array(
        z.object({
          field: z.string().nullable(),
          errors: z.number().int().nonnegative(),
          warnings: z.number().int().nonnegative(),
        }),
      ),
    }),
  },
  /**
   * Discards a batch (every order rejected or no longer wanted): its staged orders are never accepted or changed
   * after this; orders already accepted from it are not touched. Refused when no order of it is staged. Audited.
   */
  'batches.discard': {
    input: z.object({ batchId: idSchema }).strict(),
    output: z.object({ discarded: z.number().int().nonnegative(), counts: stagedCountsSchema }),
  },
  'batches.setRoute': {
    input: z.object({ batchId: idSchema, route: routeSchema }).strict(),
    output: stagedCountsSchema,
  },
  /**
   * Queues the batch's valid orders in the outbox (in steps); invalid ones stay staged. `seen`: the batch's order
   * count (counts.total) the admin reviewed: orders added after it (a live intake appending to its batch of the
   * day) are not accepted unseen but stay staged, counted in `arrived`.
   */
  'batches.accept': {
    input: z.object({ batchId: idSchema, seen: z.number().int().nonnegative().optional() }).strict(),
    output: acceptOutcomeSchema,
  },
  /** The original rows of invalid orders plus an `errors` column, for fixing in a spreadsheet and re-importing. */
  'batches.exportErrors': {
    input: z.object({ batchId: idSchema }).strict(),
    output: batchExportSchema,
  },
  /** The batch in our CSV template. */
  'batches.exportTemplate': {
    input: z.object({ batchId: idSchema }).strict(),
    output: batchExportSchema,
  },
  /** Our CSV template with one example order, to download, and the guide to its columns that goes beside it. */
  'template.example': {
    input: z.object({}).strict(),
    output: z.object({
      fileName: z.string(),
      text: z.string(),
      guide: z.object({ fileName: z.string(), text: z.string() }),
    }),
  },
  'profiles.list': { input: z.object({}).strict(), output: z.array(savedProfileViewSchema) },
  /**
   * Saves a mapping profile; `fromBatchId` keeps that import's header with it (the error export is recognised).
   * `senderWarning`: an HL7 profile saved for a sender other saved profiles are for too (show it: files from that
   * sender then ask which profile to use); null otherwise.
   */
  'profiles.save': {
    input: z
      .object({
        profile: mappingProfileInputSchema,
        fromBatchId: idSchema.optional(),
        /** Without a batch (a file refused for want of a header row): the row it was mapped as its header. */
        headerCells: z.array(z.string().max(200)).max(PROFILE_COLUMNS_MAX).optional(),
      })
      .strict(),
    output: savedProfileViewSchema.extend({
      senderWarning: z.object({ otherProfiles: z.array(z.string()).min(1), message: z.string() }).nullable(),
    }),
  },
} as const;

export const stagingEvents = {
  /** A running import's progress (bytes read of the file, rows or messages so far). */
  'import.progress': z.object({
    importId: z.string(),
    environmentId: z.string(),
    bytes: z.number().int().nonnegative(),
    totalBytes: z.number().int().nonnegative(),
    rows: z.number().int().nonnegative(),
  }),
  /** A batch was imported, edited, re-routed, accepted, discarded, or a change undone or redone: refetch it. */
  'batches.changed': z.object({ environmentId: z.string(), batchId: z.number().int() }),
} as const;
