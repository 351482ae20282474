import { z } from 'zod';
import { intakeModeSchema, intakeRuleSetSchema } from './intake-rules.js';

export { intakeModeSchema, type IntakeModeView } from './intake-rules.js';

/**
 * Live intake in the app (issue #17): the MLLP listener and watched folders the core runs while it is open, their
 * state and what they received (spread into `calls` and `events` in contract.ts). Problems carry the peer, the
 * message's control id, the outcome and a reason made of HL7 error names and field locations: never message text,
 * so never patient data. The app listens on 127.0.0.1 only (the contract has no host to give) and watches only
 * folders the core's import policy allows; anything wider is `rx-batch serve`'s, on the command line.
 */

const environmentIdSchema = z.string().min(1).max(40);
const count = z.number().int().nonnegative();

/** Minutes in the per-minute series: the last hour, oldest first, the current minute last. */
export const INTAKE_SERIES_MINUTES = 60;

export const intakeProblemSchema = z
  .object({
    at: z.string(),
    /** MSH-10 of the message, or the file's name for a watched folder; empty when there was none to read. */
    controlId: z.string().max(200),
    /** `address:port` of the sender; empty for a file. */
    peer: z.string().max(200),
    /**
     * AE/AR: the ACK sent; `review`: answered AA with ERR segments, staged with problems a person fixes before it
     * is sent; `refused`: a peer or frame refused before reading; `failed`: a file set aside; `waiting`: an empty
     * file left in place.
     */
    outcome: z.enum(['AE', 'AR', 'review', 'refused', 'failed', 'waiting']),
    reason: z.string().max(500),
    batchId: z.number().int().positive().nullable(),
  })
  .strict();
export type IntakeProblemView = z.infer<typeof intakeProblemSchema>;

export const intakeBatchLinkSchema = z
  .object({
    batchId: z.number().int().positive(),
    name: z.string().max(300),
    /** Messages (or files) this channel fed into it since the intake started. */
    count,
  })
  .strict();

/** How many of a listener's allowed addresses its view names (`rx-batch serve --allow` takes any number). */
export const INTAKE_ALLOW_LIST_SHOWN = 20;

/**
 * A listener's allow-list (`rx-batch serve --allow`): only these peers are answered, whatever its address lets reach
 * it. The app's own listener has none (it is bound to 127.0.0.1).
 */
export const intakeAllowListSchema = z
  .object({
    /** Addresses in it. */
    count,
    /** The first INTAKE_ALLOW_LIST_SHOWN, as the listener compares them (an IPv4-mapped address read as IPv4). */
    addresses: z.array(z.string().max(100)).max(INTAKE_ALLOW_LIST_SHOWN),
    /** Every address is this computer's (127.0.0.0/8, ::1): no other computer is answered. */
    loopbackOnly: z.boolean(),
  })
  .strict();
export type IntakeAllowListView = z.infer<typeof intakeAllowListSchema>;

export const intakeChannelSchema = z
  .object({
    kind: z.enum(['mllp', 'folder']),
    /** `host:port` for a listener; the folder's path for a watched folder. */
    address: z.string().max(4096),
    state: z.enum(['starting', 'listening', 'watching', 'stopped', 'failed']),
    /** Why it failed (a port in use…). */
    message: z.string().max(500).optional(),
    /** Listener: its allow-list; null without one (any peer that can reach its address) and for a folder. */
    allowList: intakeAllowListSchema.nullable(),
    /** Folder: who else can put files in it or list it, and the fix; absent when only its owner can. */
    access: z.string().max(500).optional(),
    /** Addresses connected now (listener). */
    peers: z.array(z.string().max(200)).max(100),
    connections: count,
    /** Messages (files) received per minute over the last hour: INTAKE_SERIES_MINUTES values, oldest first. */
    perMinute: z.array(count).length(INTAKE_SERIES_MINUTES),
    received: count,
    /** The last problems, newest first. */
    problems: z.array(intakeProblemSchema).max(20),
    /** Batches it fed, newest first. */
    batches: z.array(intakeBatchLinkSchema).max(50),
  })
  .strict();
export type IntakeChannelView = z.infer<typeof intakeChannelSchema>;

export const intakeStatusSchema = z
  .object({
    running: z.boolean(),
    environmentId: environmentIdSchema.nullable(),
    /** The default rule of the run shown (its `rules.onArrival`). */
    onArrival: intakeModeSchema.nullable(),
    /** The rules the run shown started with (saving new ones changes the next start, not this run). */
    rules: intakeRuleSetSchema.nullable(),
    startedAt: z.string().nullable(),
    /** The minute the series' last value counts (ISO, start of the minute). */
    seriesEndsAt: z.string(),
    channels: z.array(intakeChannelSchema).max(20),
    /** Folders this core may watch (the import policy's); null: any folder (direct calls, the command line). */
    allowedFolders: z.array(z.string()).nullable(),
    /**
     * Set when the intake shown is `rx-batch serve`'s (this page is served by `serve --ui`): the app cannot start
     * or stop it (it stops when serve gets SIGTERM or SIGINT). Null for the app's own intake.
     */
    serve: z.object({ pid: z.number().int().positive() }).strict().nullable(),
  })
  .strict();
export type IntakeStatus = z.infer<typeof intakeStatusSchema>;

export const intakeStartSchema = z
  .object({
    environmentId: environmentIdSchema,
    /** Listen for MLLP on 127.0.0.1 at this port (0: one the system picks). Absent: no listener. */
    port: z.number().int().min(0).max(65535).optional(),
    /** Folders to watch: each must be one the import policy allows. */
    folders: z.array(z.string().min(1).max(4096)).max(8).optional(),
    /**
     * Absent: the environment's saved rules (intake.rules). Given: the default rule for this run only, over the
     * saved senders' own rules, as `rx-batch serve --on-arrival` does.
     */
    onArrival: intakeModeSchema.optional(),
  })
  .strict()
  .refine((input) => input.port !== undefined || (input.folders?.length ?? 0) > 0, 'give a port, a folder, or both');

const environmentInput = z.object({ environmentId: environmentIdSchema }).strict();

export const intakeRulesSchema = z
  .object({
    environmentId: environmentIdSchema,
    rules: intakeRuleSetSchema,
    /** When they were last saved; null: never (the default, everything held for review). */
    updatedAt: z.string().nullable(),
  })
  .strict();
export type IntakeRulesView = z.infer<typeof intakeRulesSchema>;

export const intakeSaveRulesSchema = z
  .object({ environmentId: environmentIdSchema, rules: intakeRuleSetSchema })
  .strict();

export const intakeCalls = {
  'intake.status': { input: z.object({}).strict(), output: intakeStatusSchema },
  /** Starts the app's intake for one environment; refused while one runs (stop it first), and under `serve --ui`. */
  'intake.start': { input: intakeStartSchema, output: intakeStatusSchema },
  /** Stops the listener and watchers: the message or file in hand is finished first. */
  'intake.stop': { input: z.object({}).strict(), output: intakeStatusSchema },
  /** The environment's saved staging rules (what the next start and `rx-batch serve` use). */
  'intake.rules': { input: environmentInput, output: intakeRulesSchema },
  /** Saves them (audited `intake.rules.changed` with the old and new rules, when they changed). */
  'intake.saveRules': { input: intakeSaveRulesSchema, output: intakeRulesSchema },
} as const;

export const intakeEvents = {
  /** The intake's status changed (at most about once a second while messages arrive). */
  'intake.changed': intakeStatusSchema,
} as const;
