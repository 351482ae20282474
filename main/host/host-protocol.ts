import { z } from 'zod';
import { choosePurposeSchema, importFilesSchema } from '../../shared/desktop-contract.js';
import { contractErrorSchema } from '../../shared/errors.js';
import { confirmQuestionSchema } from '../core/confirm-question.js';
import { PATH_PURPOSES } from '../core/import-path-policy.js';

/**
 * The messages between the UI side (the "shell": Electron's main process, browser mode's bridge host, a test) and
 * the core host (core-host.ts, a process of its own). Calls and events are the contract's, as the bridge carries
 * them; what only the shell can do (secrets kept with `safeStorage`, native dialogs, the paths the admin handed
 * over) the host asks for as requests. Both sides parse every message they receive with these schemas: the other
 * side may be broken (a half-written message, an old build) or hostile.
 *
 *   host → shell  { type: 'hello' }                       listening; the shell sends `start`
 *   shell → host  { type: 'start', options }              build the core
 *   host → shell  { type: 'ready' } | { type: 'failed', message }
 *   shell → host  { type: 'call', id, call, input }       a contract call
 *   host → shell  { type: 'result', id, ok, value | error }
 *   host → shell  { type: 'event', event, payload }       a core event
 *   host → shell  { type: 'request', id, service, args }  something only the shell can do
 *   shell → host  { type: 'reply', id, ok, value | message }
 *   host → shell  { type: 'log', level, message, fields } a log line, written by the shell's logger
 *   shell → host  { type: 'stop' }                        close the core (then the host exits)
 *   host → shell  { type: 'stopped' }
 */

const idSchema = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
const pathSchema = z.string().min(1).max(4096);
const sentence = z.string().max(2000);

const positive = z.number().positive().max(1e9);
const nonNegative = z.number().nonnegative().max(1e9);

/** What the host builds the core with: serialisable stand-ins for createCore's options (app-core.ts). */
export const hostStartOptionsSchema = z
  .object({
    dataDir: pathSchema,
    appVersion: z.string().min(1).max(100),
    transport: z.enum(['electron', 'browser', 'direct']),
    /**
     * Where sign-in secrets live: `memory` (the host's, lost when it stops), `plain-file` (the CLI's 0600 file),
     * or `shell` (asked of the shell, which keeps them: `safeStorage` in the desktop app, memory in browser mode's
     * host, so a restarted core keeps the session's sign-ins).
     */
    secrets: z.enum(['memory', 'plain-file', 'shell']),
    /** The audit chain's key: with the secrets (the default), or in the plain 0600 file. */
    auditKeys: z.enum(['secrets', 'plain-file']).optional(),
    /** Also read the plain file's audit key, to check entries the CLI or browser mode wrote. */
    checkPlainFileAuditKey: z.boolean().optional(),
    /** Which paths `import.file` may read: see import-path-policy.ts; `shell`: asked of the shell each time. */
    importPaths: z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('any') }).strict(),
      z.object({ kind: z.literal('none') }).strict(),
      z.object({ kind: z.literal('folders'), folders: z.array(pathSchema).max(100) }).strict(),
      z.object({ kind: z.literal('shell') }).strict(),
    ]),
    /** The shell has a desktop integration (native dialogs, files from the OS, the file manager). */
    desktop: z.boolean(),
    localSandbox: z
      .object({
        start: z.boolean(),
        statusStepMs: z.number().int().min(10).max(86_400_000).optional(),
        adminRoutes: z.boolean().optional(),
      })
      .strict(),
    startOutbox: z.boolean().optional(),
    /** For tests: see OutboxTuning and PollerTuning. */
    outboxTuning: z
      .object({
        concurrency: positive,
        ratePerSecond: positive,
        baseDelayMs: nonNegative,
        maxDelayMs: nonNegative,
        maxAttempts: positive,
        breakerThreshold: positive,
        breakerCooldownMs: nonNegative,
        reconcileDelayMs: nonNegative,
        listingGraceMs: nonNegative,
      })
      .partial()
      .strict()
      .optional(),
    pollerTuning: z
      .object({
        minIntervalMs: nonNegative,
        maxIntervalMs: nonNegative,
        factor: positive,
        concurrency: positive,
        ratePerSecond: positive,
        dispatchRefreshMs: nonNegative,
        lookbackDays: positive,
      })
      .partial()
      .strict()
      .optional(),
  })
  .strict();
export type HostStartOptions = z.infer<typeof hostStartOptionsSchema>;

const secretKeySchema = z.string().min(1).max(500);

const request = <S extends string, A extends z.ZodType>(service: S, args: A) =>
  z.object({ type: z.literal('request'), id: idSchema, service: z.literal(service), args }).strict();

/** What the host may ask of the shell, with its arguments; `replySchemas` says what each answer must be. */
const hostRequestSchema = z.discriminatedUnion('service', [
  request('secrets.get', z.object({ key: secretKeySchema }).strict()),
  request('secrets.set', z.object({ key: secretKeySchema, value: z.string().max(1_000_000) }).strict()),
  request('secrets.delete', z.object({ key: secretKeySchema }).strict()),
  request('desktop.chooseFiles', z.object({ purpose: choosePurposeSchema }).strict()),
  request('desktop.takeImportRequests', z.object({}).strict()),
  request('desktop.openDataFolder', z.object({}).strict()),
  // The core's question, shown as it is: kind and wording checked here, lengths capped (confirm-question.ts).
  request('desktop.confirm', z.object({ question: confirmQuestionSchema }).strict()),
  request(
    'desktop.chooseSavePath',
    z
      .object({
        request: z
          .object({
            suggestedName: z.string().regex(/^[\w.-]{1,100}$/),
            format: z.enum(['csv', 'jsonl']),
          })
          .strict(),
      })
      .strict(),
  ),
  request('importPaths.allow', z.object({ path: pathSchema, purpose: z.enum(PATH_PURPOSES) }).strict()),
]);
export type HostRequest = z.infer<typeof hostRequestSchema>;
export type HostService = HostRequest['service'];
export type HostServiceArgs<S extends HostService> = Extract<HostRequest, { service: S }>['args'];
export type HostServiceReply<S extends HostService> = z.infer<(typeof replySchemas)[S]>;

export const replySchemas = {
  'secrets.get': z.string().max(1_000_000).nullable(),
  'secrets.set': z.null(),
  'secrets.delete': z.null(),
  'desktop.chooseFiles': importFilesSchema,
  'desktop.takeImportRequests': importFilesSchema,
  'desktop.openDataFolder': z.object({ problem: sentence.optional() }).strict(),
  'desktop.confirm': z.boolean(),
  'desktop.chooseSavePath': pathSchema.nullable(),
  'importPaths.allow': pathSchema.nullable(),
} as const;

const logFieldsSchema = z.record(
  z.string().max(100),
  z.union([z.string().max(10_000), z.number(), z.boolean(), z.null()]),
);

/** Everything the shell may receive from the host. */
export const hostMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('hello') }).strict(),
  z.object({ type: z.literal('ready') }).strict(),
  z.object({ type: z.literal('failed'), message: sentence }).strict(),
  z.discriminatedUnion('ok', [
    z.object({ type: z.literal('result'), id: idSchema, ok: z.literal(true), value: z.unknown().optional() }).strict(),
    z
      .object({ type: z.literal('result'), id: idSchema.nullable(), ok: z.literal(false), error: contractErrorSchema })
      .strict(),
  ]),
  z.object({ type: z.literal('event'), event: z.string().min(1).max(100), payload: z.unknown() }).strict(),
  hostRequestSchema,
  z
    .object({
      type: z.literal('log'),
      level: z.enum(['info', 'warn', 'error']),
      message: sentence,
      fields: logFieldsSchema.optional(),
    })
    .strict(),
  z.object({ type: z.literal('stopped') }).strict(),
]);
export type HostMessage = z.infer<typeof hostMessageSchema>;

/** Everything the host may receive from the shell. */
export const shellMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('start'), options: hostStartOptionsSchema }).strict(),
  z
    .object({ type: z.literal('call'), id: idSchema, call: z.string().min(1).max(100), input: z.unknown().optional() })
    .strict(),
  z.discriminatedUnion('ok', [
    z.object({ type: z.literal('reply'), id: idSchema, ok: z.literal(true), value: z.unknown().optional() }).strict(),
    z.object({ type: z.literal('reply'), id: idSchema, ok: z.literal(false), message: sentence }).strict(),
  ]),
  z.object({ type: z.literal('stop') }).strict(),
]);
export type ShellMessage = z.infer<typeof shellMessageSchema>;

/** The id of a message too broken to parse, when it still has a usable one (so a call can be answered). */
export function salvageId(message: unknown): number | null {
  if (typeof message !== 'object' || message === null || !('id' in message)) return null;
  const { id } = message;
  return typeof id === 'number' && Number.isSafeInteger(id) && id >= 0 ? id : null;
}
