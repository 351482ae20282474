import { z } from 'zod';
import { boundedRecord } from './bounded-record.js';
import { insecureUrlProblem } from './loopback.js';

/** An environment's API profile: everything that may differ between deployments of the Order Service. */

export const ORDER_SERVICE_SCOPES = [
  'cloudrx_orderservice',
  'cloudrx_productservice',
  'cloudrx_smsservice',
  'cloudrx_courierservice',
] as const;

export const grantSchema = z.enum(['device', 'client_credentials']);
export type Grant = z.infer<typeof grantSchema>;

/** Entries of one code list, and the length of each: lists of a few words, with room to spare. */
export const CODE_LIST_MAX = 500;
export const CODE_MAX = 100;
/** An environment's scopes, and each one's length. */
export const SCOPES_MAX = 20;
export const SCOPE_MAX = 200;
/** The audit entry of an identity change keeps the issuer (and the API origin) in at most 300 characters. */
export const URL_MAX = 300;

const codeList = z.array(z.string().max(CODE_MAX)).max(CODE_LIST_MAX);
const v2Codes = boundedRecord(z.string().max(CODE_MAX), z.number().int(), CODE_LIST_MAX);

export const codeListsSchema = z.object({
  titles: codeList,
  genders: codeList,
  paymentTypes: codeList,
  courierCodes: codeList,
  currencyCodes: codeList,
  /** v1 text → v2 integer, for the v2 create route. */
  v2Title: v2Codes,
  v2PaymentType: v2Codes,
  v2CourierCode: v2Codes,
});
export type CodeLists = z.infer<typeof codeListsSchema>;

/** An address that receives credentials: https, or plain http to this computer only (insecureUrlProblem). */
function credentialUrlSchema(what: string) {
  return z
    .url()
    .max(URL_MAX)
    .superRefine((text, context) => {
      const problem = insecureUrlProblem(text, what);
      if (problem) context.addIssue({ code: 'custom', message: problem });
    });
}

/**
 * Line breaks, tabs and other control characters, and the marks that reorder text (bidi controls). An environment's
 * name is shown in native dialogs (the app's confirmations), the header, the log and the terminal: one holding them
 * could make a question read as something else, e.g. a second line that looks like the dialog's own.
 */
const UNSAFE_NAME_CHARACTER = /[\p{Cc}\p{Zl}\p{Zp}\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;
const UNSAFE_NAME_CHARACTERS = new RegExp(UNSAFE_NAME_CHARACTER.source, 'gu');

export const environmentNameSchema = z
  .string()
  .min(1)
  .max(80)
  .refine((name) => !UNSAFE_NAME_CHARACTER.test(name), {
    message: 'holds a line break, a tab, another control character or a text-direction mark: write it on one line',
  });

/** A name stored by a version that let such characters in, each shown as a space (it stays readable, and safe). */
export const safeEnvironmentName = (name: string): string =>
  name.replace(UNSAFE_NAME_CHARACTERS, ' ').trim() || '(unnamed)';

export const environmentSchema = z.object({
  id: z
    .string()
    .max(40)
    .regex(/^[a-z0-9][a-z0-9-]{0,39}$/, 'lower-case letters, digits and dashes'),
  name: environmentNameSchema,
  /** `local-sandbox` is started by the app itself; its URLs are filled in when it runs. */
  kind: z.enum(['local-sandbox', 'remote']),
  /** With issuer, clientId and grant, the environment's identity: tokens and secrets are bound to all four. */
  apiBaseUrl: credentialUrlSchema('Order Service address'),
  issuer: credentialUrlSchema('identity server address'),
  /** Empty until the supplier enters the id CloudRx issued them. */
  clientId: z.string().max(200),
  grant: grantSchema,
  scopes: z.array(z.string().min(1).max(SCOPE_MAX)).min(1).max(SCOPES_MAX),
  /** Version segment of the create-with-clinic path: public pages list both. */
  createWithClinicVersion: z.enum(['v1', 'v2']),
  requestTimeoutMs: z.number().int().min(1000).max(300_000),
  codeLists: codeListsSchema,
});
export type Environment = z.infer<typeof environmentSchema>;

export const DEFAULT_CODE_LISTS: CodeLists = {
  titles: ['Mr', 'Mrs', 'Miss', 'Ms', 'Mx', 'Dr', 'Prof', 'Rev'],
  genders: ['Male', 'Female', 'Other', 'Unknown'],
  paymentTypes: ['Account', 'Card', 'Invoice'],
  courierCodes: ['RMT24', 'RMT48', 'DPD'],
  currencyCodes: ['GBP'],
  v2Title: { Mr: 1, Mrs: 2, Miss: 3, Ms: 4, Dr: 5, Prof: 6, Rev: 7, Mx: 8 },
  v2PaymentType: { Account: 1, Card: 2, Invoice: 3 },
  v2CourierCode: { RMT24: 1, RMT48: 2, DPD: 3 },
};

/** How fast the submitter and the status poller may go against one environment (stored beside the profile). */
export const sendingPaceSchema = z.object({
  /** Creates in flight at once. */
  concurrency: z.number().int().min(1).max(16),
  /** Requests started per second, all kinds together. */
  ratePerSecond: z.number().positive().max(100),
  /** How often open orders' statuses are polled (the shortest wait; quiet orders are looked at less often). */
  pollIntervalMs: z.number().int().min(5_000).max(86_400_000),
});
export type SendingPace = z.infer<typeof sendingPaceSchema>;

/**
 * A new environment's pace. The rate is what limits the load on the service (5 request starts a second, whatever
 * the concurrency); the concurrency only bounds how many may be waiting at once. Four, not two: a slow commit holds
 * its slot for up to the request timeout, and with two slots two slow requests stopped all sending (lookups too)
 * while the service answered others at once. See main/core/outbox/README.md, "A service that is sometimes slow".
 */
export const DEFAULT_SENDING_PACE: SendingPace = { concurrency: 4, ratePerSecond: 5, pollIntervalMs: 60_000 };

/** An API profile with its pace, as the settings screen edits it. */
export const environmentProfileSchema = environmentSchema.extend(sendingPaceSchema.shape);
export type EnvironmentProfileView = z.infer<typeof environmentProfileSchema>;

/** A public summary of an environment as the UI sees it (no secrets ever). */
export const environmentViewSchema = environmentProfileSchema.extend({
  /** For the local sandbox: whether the app has it running right now. */
  running: z.boolean(),
});
export type EnvironmentView = z.infer<typeof environmentViewSchema>;
