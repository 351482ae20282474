import { z } from 'zod';
import { courierListSchema } from './couriers.js';
import { environmentProfileSchema, environmentViewSchema } from './environment.js';
import { environmentRemovalCalls } from './environment-removal.js';
import { serviceResultSchema } from './errors.js';
import {
  cancelResultSchema,
  orderDetailSchema,
  orderSourceSchema,
  orderStateSchema,
  orderSummarySchema,
} from './order-views.js';
import { attentionSchema, outboxProgressSchema } from './outbox-views.js';
import { deviceSignInStartSchema, signInChangeSchema, signInStatusSchema } from './signin-views.js';
import { priceCheckSchema, productListSchema, stockCheckSchema } from './products.js';
import { orderLookupQuerySchema, orderLookupResultSchema } from './service-lookup.js';
import { patientSurnameFilterSchema } from './patient-surname.js';
import { desktopCalls, desktopEvents } from './desktop-contract.js';
import { dmdCodeSchema } from './dmd.js';
import { enrichmentCalls, enrichmentEvents } from './enrichment-contract.js';
import { intakeCalls, intakeEvents } from './intake-contract.js';
import { logCalls, logEvents } from './log-contract.js';
import { retentionCalls } from './retention-contract.js';
import { senderBindingCalls } from './sender-binding-contract.js';
import { stagingCalls, stagingEvents } from './staging-contract.js';

/**
 * The one contract between the renderer and the core: every call (name, input, output) and every event.
 * Transports (Electron IPC, the browser bridge, direct calls) carry exactly these; main parses every input
 * with the schema before the core sees it, so types hold at run time too.
 */

const environmentIdSchema = z.string().min(1).max(40);
const onEnvironment = z.object({ environmentId: environmentIdSchema }).strict();
const idSchema = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const pageLimit = z.number().int().min(1).max(500).optional();
/** A product by its id, its dm+d code, or both (the service's stock and price checks take either). */
const productRefInput = {
  environmentId: environmentIdSchema,
  productId: z.number().int().nonnegative().optional(),
  dmdCode: dmdCodeSchema.optional(),
};
const hasProductRef = (ref: { productId?: number | undefined; dmdCode?: string | undefined }) =>
  ref.productId !== undefined || ref.dmdCode !== undefined;

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
  /** Where this install keeps its data (the store, sign-ins), shown in settings. */
  dataDir: z.string(),
  /**
   * What only the desktop app offers (shared/desktop-contract.ts); absent in browser mode and direct calls.
   * `confirmRetention`: `retention.set` asks the admin in a native dialog before a shorter time is saved, so the page
   * does not ask as well (without it, the page's question is the only one).
   */
  desktop: z
    .object({ fileDialogs: z.boolean(), openDataFolder: z.boolean(), confirmRetention: z.boolean() })
    .strict()
    .optional(),
  /** Browser mode: the only folders files may be imported from by path (the host's --import-dir); none: no path. */
  importFolders: z.array(z.string()).optional(),
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
  'products.stock': {
    input: z.object(productRefInput).strict().refine(hasProductRef, 'give a productId or a dmdCode'),
    output: serviceResultSchema(stockCheckSchema),
  },
  'products.price': {
    input: z
      .object({ ...productRefInput, totalPacks: z.number().int().min(1).max(10_000) })
      .strict()
      .refine(hasProductRef, 'give a productId or a dmdCode'),
    output: serviceResultSchema(priceCheckSchema),
  },
  /**
   * Adds (`create`) or edits an environment's API profile and pace. The local sandbox's URLs, client id and grant
   * are the app's own and stay as they are. A changed pace, URL or timeout applies at once to the running
   * submitter and poller (requests in flight finish first).
   */
  'environments.save': {
    input: z.object({ environment: environmentProfileSchema, create: z.boolean() }).strict(),
    output: environmentViewSchema,
  },
  // Removing an environment (what it does said first) and the one chosen on screen (shared/environment-removal.ts).
  ...environmentRemovalCalls,

  // Sign-in. Tokens and secrets never come back: a secret goes in once and lands in the SecretStore.
  'signin.status': { input: onEnvironment, output: signInStatusSchema },
  'signin.startDevice': { input: onEnvironment, output: deviceSignInStartSchema },
  'signin.cancelDevice': { input: onEnvironment, output: z.object({ cancelled: z.boolean() }) },
  'signin.clientCredentials': {
    input: z
      .object({ environmentId: environmentIdSchema, clientSecret: z.string().min(1).max(1000).optional() })
      .strict(),
    output: z.discriminatedUnion('ok', [
      z.object({ ok: z.literal(true) }),
      z.object({ ok: z.literal(false), code: z.string(), message: z.string() }),
    ]),
  },
  'signin.signOut': { input: onEnvironment, output: signInStatusSchema },

  // The outbox (submitter) per environment.
  'outbox.progress': { input: onEnvironment, output: outboxProgressSchema },
  'outbox.pause': { input: onEnvironment, output: outboxProgressSchema },
  'outbox.resume': { input: onEnvironment, output: outboxProgressSchema },
  'outbox.retryNow': {
    input: z.object({ orderIds: z.array(idSchema).min(1).max(10_000) }).strict(),
    output: z.object({ count: z.number().int().nonnegative() }),
  },

  // Orders: list (keyset paging by id), one with its history, cancel.
  'orders.list': {
    input: z
      .object({
        environmentId: environmentIdSchema.optional(),
        states: z.array(orderStateSchema).min(1).max(12).optional(),
        /**
         * Only the orders a person must look at: rejected, held or refused a cancel, or flagged as not found at the
         * service whatever their state (the Submissions screen's list). With `environmentId`, not with `states`.
         */
        needsAttention: z.literal(true).optional(),
        clinicCode: z.string().min(1).max(64).optional(),
        clinicOrderId: z.string().min(1).max(64).optional(),
        /** The service's status text, exactly. */
        remoteStatus: z.string().min(1).max(200).optional(),
        /** Accepted into the app on or after / on or before these dates (UTC, `YYYY-MM-DD`). */
        createdFrom: z.iso.date().max(10).optional(),
        createdTo: z.iso.date().max(10).optional(),
        /**
         * Accepted at or after / before these instants (ISO, UTC): the page's own days' bounds, so "accepted on 3
         * April" means the admin's 3 April, in summer time too, not UTC's.
         */
        createdAtFrom: z.iso.datetime({ offset: true }).max(40).optional(),
        createdAtBefore: z.iso.datetime({ offset: true }).max(40).optional(),
        /** The patient's surname or its beginning, case and accents ignored; never echoed, logged or audited. */
        patientSurname: patientSurnameFilterSchema.optional(),
        /** The page cursor: the previous page's `nextAfterId`. Pages run newest first (issue #16). */
        afterId: z.number().int().nonnegative().optional(),
        limit: pageLimit,
      })
      .strict(),
    output: z.object({ orders: z.array(orderSummarySchema), nextAfterId: z.number().int().nullable() }),
  },
  /** Looks every open order of the environment (or just `orderId`) up now: statuses, dispatch dates, tracking ids. */
  'orders.refresh': {
    input: z.object({ environmentId: environmentIdSchema, orderId: idSchema.optional() }).strict(),
    output: z.object({
      checked: z.number().int().nonnegative(),
      changed: z.number().int().nonnegative(),
      stoppedBy: z.enum(['sign-in-required', 'service-unavailable']).nullable(),
      at: z.string(),
    }),
  },
  /** Any order on the service, sent from this app or not. */
  'orders.lookup': {
    input: z.object({ environmentId: environmentIdSchema, query: orderLookupQuerySchema }).strict(),
    output: orderLookupResultSchema,
  },
  'orders.get': { input: z.object({ orderId: idSchema }).strict(), output: orderDetailSchema },
  /** The order's original CSV records or HL7 message (patient data), for the detail view's "Show source". */
  'orders.source': { input: z.object({ orderId: idSchema }).strict(), output: orderSourceSchema },
  'orders.cancel': {
    input: z
      .object({ orderIds: z.array(idSchema).min(1).max(10_000), reason: z.string().trim().min(1).max(500) })
      .strict(),
    output: z.object({ results: z.array(cancelResultSchema) }),
  },

  // The audit log: search, verify, export (shared/log-contract.ts).
  ...logCalls,

  // Import staging: import a file, review and fix its orders, accept them (shared/staging-contract.ts).
  ...stagingCalls,
  // Checking a staged batch with the service: products, stock, prices, couriers (shared/enrichment-contract.ts).
  ...enrichmentCalls,
  // Live intake while the app is open: an MLLP listener on 127.0.0.1 and watched folders (shared/intake-contract.ts).
  ...intakeCalls,
  // Which peers and clinics an HL7 profile's sender is bound to (shared/sender-binding-contract.ts).
  ...senderBindingCalls,
  // Native dialogs, files handed over by the OS, the data folder (shared/desktop-contract.ts).
  ...desktopCalls,
  // How long the staging copies of finished orders are kept (shared/retention-contract.ts).
  ...retentionCalls,
} as const;

export const events = {
  'environments.changed': z.array(environmentViewSchema),
  /** Device sign-in progress and sign-in results. */
  'signin.changed': signInChangeSchema,
  'outbox.progress': outboxProgressSchema,
  /** Orders whose state, status or dispatch information changed: refetch them. */
  'orders.changed': z.object({ environmentId: z.string(), orderIds: z.array(z.number().int()) }),
  /** One per condition (sign-in required, service unavailable, an order set aside), for notifications. */
  attention: attentionSchema,
  /**
   * The core's own process (the desktop app's utility process, browser mode's child): it died and is restarting,
   * runs again, or was not restarted after failing again and again (`message` says what to do). Said by the side
   * that starts the core (main/host/core-client.ts), never by the core itself.
   */
  'app.core': z
    .object({ state: z.enum(['running', 'restarting', 'failed']), message: z.string().max(1000).optional() })
    .strict(),
  ...stagingEvents,
  ...enrichmentEvents,
  ...intakeEvents,
  ...desktopEvents,
  ...logEvents,
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
