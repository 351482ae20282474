import { z } from 'zod';

/**
 * What the review screen sees of an import: the batch, its staged orders (bodies included: reviewing them is the
 * point, and they never leave the machine), their problems and where every value came from. Orders already in
 * the outbox are shown through order-views.ts, which carries no bodies.
 */

export const ROUTE_NAMES = ['v1', 'v2', 'hl7'] as const;
/** v1 create-with-clinic (registers the clinic), v2 create (clinics the service knows), or the HL7 message forwarded. */
export const routeSchema = z.enum(ROUTE_NAMES);
export type RouteName = z.infer<typeof routeSchema>;

export const problemViewSchema = z.object({
  severity: z.enum(['error', 'warning']),
  file: z.string(),
  /** CSV: the physical line the record starts on. */
  row: z.number().int().optional(),
  /** HL7: the 1-based message index. */
  message: z.number().int().optional(),
  /** Dotted body path, e.g. `prescribedItems.0.dmdCode`. */
  field: z.string().optional(),
  code: z.string(),
  text: z.string(),
});
export type ProblemView = z.infer<typeof problemViewSchema>;

const importedProvenanceSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('csv'), file: z.string(), row: z.number().int(), column: z.string() }),
  z.object({
    kind: z.literal('hl7'),
    file: z.string(),
    message: z.number().int(),
    /** e.g. `RXE-12` or `PID-11[2].5` */
    path: z.string(),
    segment: z.string(),
  }),
  z.object({ kind: z.literal('constant'), profile: z.string(), column: z.string() }),
]);

export const provenanceViewSchema = z.union([
  importedProvenanceSchema,
  /** Changed by the admin; `was` is where the value it replaced came from. */
  z.object({ kind: z.literal('edited'), at: z.string(), was: importedProvenanceSchema.optional() }),
]);
export type ProvenanceView = z.infer<typeof provenanceViewSchema>;

/**
 * Who sent an HL7 file (envelope fields only, never patient data): kept with an HL7 mapping profile saved from an
 * import, so the next file from the same sender is read with that profile.
 */
/** The most of each part of an HL7 sender kept and shown (longer ones are cut where they are read, finding 69). */
export const HL7_SENDER_MAX = { application: 200, facility: 200, messageType: 40 } as const;

export const hl7SenderSchema = z
  .object({
    /** MSH-3 (FHS-3/BHS-3 when the file or batch header gives it): its namespace id, else its universal id. */
    application: z.string().max(HL7_SENDER_MAX.application),
    /** MSH-4 (FHS-4/BHS-4 when given), read the same way. */
    facility: z.string().max(HL7_SENDER_MAX.facility),
    /** MSH-9.1^MSH-9.2 of the first message, e.g. `RDE^O11`. */
    messageType: z.string().max(HL7_SENDER_MAX.messageType),
  })
  .strict();
export type Hl7Sender = z.infer<typeof hl7SenderSchema>;

/**
 * How the mapping profile was chosen: named by the admin (`explicit`), by the CSV header's fingerprint (`header`),
 * by the HL7 sender (`sender`), our template, a suggestion from the column names, none (`none`: HL7 read with the
 * standard field map), or none because several saved profiles fit the sender (`several`: `candidates` names them,
 * and the admin chooses). `reason` says it in a sentence.
 */
export const profileChoiceSchema = z.object({
  via: z.enum(['explicit', 'header', 'sender', 'template', 'suggested', 'none', 'several']),
  reason: z.string(),
  candidates: z.array(z.string()).optional(),
});
export type ProfileChoice = z.infer<typeof profileChoiceSchema>;

/** What the import found out about the file. */
export const importSummarySchema = z.object({
  format: z.enum(['csv', 'hl7', 'json']),
  encoding: z.string(),
  encodingDetected: z.boolean(),
  delimiter: z.string().optional(),
  headerRow: z.number().int().optional(),
  headerCells: z.array(z.string()).optional(),
  /** CSV with no header row found: the row offered to map as its header (its line and cells). */
  candidateHeader: z.object({ row: z.number().int(), cells: z.array(z.string()) }).optional(),
  messageTypes: z.array(z.string()).optional(),
  /** `template`, `suggested`, or a saved profile's name. */
  profile: z.string().optional(),
  /** The mapping actually applied (a suggestion can be saved from here). */
  appliedProfile: z.record(z.string(), z.unknown()).optional(),
  /** How `profile` was chosen, and why. */
  profileChoice: profileChoiceSchema.optional(),
  /** HL7: the file's sender, saved with a profile made from this import. */
  hl7Sender: hl7SenderSchema.optional(),
  /**
   * HL7: each message's sender as live intake's staging rules name senders (`APP^FACILITY`, MSH-3^MSH-4 first
   * components; the FHS/BHS's for a message naming none; `''` for none), each once, at most 100 (`more`: others
   * too). A watched folder's file follows their rules (main/core/intake/README.md, "Rules").
   */
  hl7MessageSenders: z.object({ senders: z.array(z.string().max(401)).max(100), more: z.boolean() }).optional(),
  rowsRead: z.number().int().nonnegative(),
  fileProblems: z.array(problemViewSchema),
});
export type ImportSummary = z.infer<typeof importSummarySchema>;

export const stagedCountsSchema = z.object({
  total: z.number().int().nonnegative(),
  staged: z.number().int().nonnegative(),
  valid: z.number().int().nonnegative(),
  invalid: z.number().int().nonnegative(),
  /** Of the invalid, the messages that are no order at all: no edit makes them orders; the sender must resend. */
  notOrders: z.number().int().nonnegative(),
  accepted: z.number().int().nonnegative(),
});

/** A change of a batch that undo or redo would take: an edit of one order, or one find and replace. */
export const editStepSchema = z.object({
  kind: z.enum(['edit', 'replace']),
  /** A find and replace's field (body path, `prescribedItems.*.x` for item fields); null for an edit. */
  field: z.string().nullable(),
  /** An edit's order (its position in the batch); null for a find and replace. */
  position: z.number().int().positive().nullable(),
  orders: z.number().int().nonnegative(),
  cells: z.number().int().nonnegative(),
  at: z.string(),
});
export type EditStepView = z.infer<typeof editStepSchema>;

export const batchViewSchema = z.object({
  id: z.number().int().positive(),
  environmentId: z.string(),
  sourceFileName: z.string(),
  kind: z.enum(['csv', 'hl7', 'json']),
  route: routeSchema,
  createdAt: z.string(),
  counts: stagedCountsSchema,
  summary: importSummarySchema.nullable(),
  /** When the admin discarded the batch (its staged orders are never accepted); null while it is not. */
  discardedAt: z.string().nullable(),
  /** The change undo would take back now; null when there is none (or it touched orders accepted since). */
  undo: editStepSchema.nullable(),
  /** The change redo would make again; null when there is none. */
  redo: editStepSchema.nullable(),
});
export type BatchView = z.infer<typeof batchViewSchema>;

export const stagedOrderViewSchema = z.object({
  id: z.number().int().positive(),
  batchId: z.number().int().positive(),
  position: z.number().int().positive(),
  state: z.enum(['staged', 'accepted']),
  /** The outbox order it became (a cancel message: the order it cancels). */
  orderId: z.number().int().nullable(),
  valid: z.boolean(),
  clinicCode: z.string().nullable(),
  clinicOrderId: z.string().nullable(),
  /** NW: a new order; CA: an HL7 cancel of an order sent earlier. */
  orderControl: z.enum(['NW', 'CA']),
  edited: z.boolean(),
  /** The create-with-clinic v1 body (as the service will read it when valid); dm+d codes as digit strings. */
  body: z.unknown(),
  /** Exactly what will be sent on the batch's route (wire JSON, or the HL7 message); null while invalid. */
  request: z.string().nullable(),
  problems: z.array(problemViewSchema),
  /** Keyed by dotted body path. */
  provenance: z.record(z.string(), provenanceViewSchema),
  /** CSV: the lines its records start on; HL7: its message index. */
  rows: z.array(z.number().int()).optional(),
  message: z.number().int().optional(),
});
export type StagedOrderView = z.infer<typeof stagedOrderViewSchema>;

/** One change of a staged order's history: a cell's value before and after (as text; null: blank), and when. */
export const orderHistoryEntrySchema = z.object({
  kind: z.enum(['edit', 'replace']),
  at: z.string(),
  /** `done` (in effect), `undone` (can be redone), `dropped` (undone, then a newer change was made). */
  state: z.enum(['done', 'undone', 'dropped']),
  undoneAt: z.string().nullable(),
  /** Dotted body path. */
  path: z.string(),
  before: z.string().nullable(),
  after: z.string().nullable(),
});
export type OrderHistoryEntry = z.infer<typeof orderHistoryEntrySchema>;

export const importOutcomeSchema = z.discriminatedUnion('status', [
  z.object({
    status: z.literal('staged'),
    batchId: z.number().int().positive(),
    orders: z.number().int().nonnegative(),
    valid: z.number().int().nonnegative(),
    invalid: z.number().int().nonnegative(),
    /** Of the invalid, the messages that are no order at all (another type, unreadable, no item). */
    notOrders: z.number().int().nonnegative(),
    summary: importSummarySchema,
  }),
  /** Nothing was staged: the file as a whole is unusable (empty, binary, no header, truncated HL7…). */
  z.object({ status: z.literal('refused'), problems: z.array(problemViewSchema), summary: importSummarySchema }),
  /** The admin cancelled it; nothing was staged. */
  z.object({ status: z.literal('cancelled') }),
]);
export type ImportOutcome = z.infer<typeof importOutcomeSchema>;

export const acceptOutcomeSchema = z.object({
  batchId: z.number().int().positive(),
  environmentId: z.string(),
  route: routeSchema,
  /** New orders queued in the outbox. */
  accepted: z.number().int().nonnegative(),
  /** HL7 cancel messages turned into cancel requests (or withdrawals of unsent orders). */
  cancelled: z.number().int().nonnegative(),
  /** Orders still staged (invalid, or found already accepted from another batch). */
  staying: z.number().int().nonnegative(),
  /** Of those, the orders added to the batch after the count the admin saw (`seen`): left for review. */
  arrived: z.number().int().nonnegative().optional(),
});
export type AcceptOutcome = z.infer<typeof acceptOutcomeSchema>;

export const savedProfileViewSchema = z.object({
  name: z.string(),
  headerFingerprint: z.string().nullable(),
  profile: z.record(z.string(), z.unknown()),
  updatedAt: z.string(),
});
export type SavedProfileView = z.infer<typeof savedProfileViewSchema>;
