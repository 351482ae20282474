import { z } from 'zod';
import { courierListSchema } from './couriers.js';
import { environmentViewSchema } from './environment.js';
import { serviceResultSchema } from './errors.js';
import { productListSchema } from './products.js';

/**
 * The one contract between the renderer and the core: every call (name, input, output) and every event.
 * Transports (Electron IPC, the browser bridge, direct calls) carry exactly these; main parses every input
 * with the schema before the core sees it, so types hold at run time too.
 */

const environmentIdSchema = z.string().min(1).max(40);

export const connectionReportSchema = z.object({
  environmentId: z.string(),
  checkedAt: z.string(),
  api: z.object({
    reachable: z.boolean(),
    status: z.number().int().optional(),
    latencyMs: z.number().nonnegative().optional(),
    message: z.string(),
  }),
  identity: z.object({
    reachable: z.boolean(),
    deviceAuthorization: z.boolean(),
    clientCredentials: z.boolean(),
    message: z.string(),
  }),
});
export type ConnectionReport = z.infer<typeof connectionReportSchema>;

export const appInfoSchema = z.object({
  name: z.string(),
  version: z.string(),
  transport: z.enum(['electron', 'browser', 'direct']),
});
export type AppInfo = z.infer<typeof appInfoSchema>;

export const calls = {
  'app.info': { input: z.object({}).strict(), output: appInfoSchema },
  'environments.list': { input: z.object({}).strict(), output: z.array(environmentViewSchema) },
  'connection.check': {
    input: z.object({ environmentId: environmentIdSchema }).strict(),
    output: connectionReportSchema,
  },
  'couriers.priceList': {
    input: z.object({ environmentId: environmentIdSchema }).strict(),
    output: serviceResultSchema(courierListSchema),
  },
  'products.search': {
    input: z.object({ environmentId: environmentIdSchema, searchTerm: z.string().trim().min(1).max(100) }).strict(),
    output: serviceResultSchema(productListSchema),
  },
} as const;

export const events = {
  'environments.changed': z.array(environmentViewSchema),
} as const;

export type CallName = keyof typeof calls;
export type EventName = keyof typeof events;
export type CallInput<N extends CallName> = z.input<(typeof calls)[N]['input']>;
export type CallOutput<N extends CallName> = z.output<(typeof calls)[N]['output']>;
export type EventPayload<E extends EventName> = z.output<(typeof events)[E]>;

export function isCallName(name: unknown): name is CallName {
  return typeof name === 'string' && Object.hasOwn(calls, name);
}

/** What the renderer holds, whatever the transport. */
export interface RxBatchApi {
  call<N extends CallName>(name: N, input: CallInput<N>): Promise<CallOutput<N>>;
  on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void;
}

/** What the core implements: one function per call, given input already parsed by its schema. */
export type CallHandlers = {
  [N in CallName]: (input: z.output<(typeof calls)[N]['input']>) => Promise<CallOutput<N>>;
};

/** Largest message any transport accepts, in bytes: far above any legitimate call, far below harm. */
export const MAX_MESSAGE_BYTES = 1_000_000;
