import { z } from 'zod';

/** The service's error envelope and the error values every layer hands upward (never bare strings). */

export const fieldErrorSchema = z.object({ field: z.string(), message: z.string() });
export type FieldError = z.infer<typeof fieldErrorSchema>;

/** `details` comes in three shapes: one field error, a plain message, or a validation list. */
export const errorDetailsSchema = z.union([
  fieldErrorSchema,
  z.object({ message: z.string() }),
  z.array(fieldErrorSchema),
]);

export const errorEnvelopeSchema = z.object({
  error: z.string(),
  status: z.number().int(),
  details: errorDetailsSchema.nullish(),
});
export type ErrorEnvelope = z.infer<typeof errorEnvelopeSchema>;

/**
 * What an error keeps of the service's envelope: that the service wrote it (not a proxy in front of it), and the
 * status it named. Never the body: kept whole, each refused order held up to 10 MB of whatever a hostile service wrote
 * in `error` or `details`, when the message and fields (already cut) are all anything reads.
 */
export const envelopeMarkSchema = z.object({ status: z.number().int() });
export type EnvelopeMark = z.infer<typeof envelopeMarkSchema>;

/**
 * What the caller can do about a failure:
 * - `retryable`: safe to send again later: nothing reached the service (network error before sending), the service
 *   said it did not act (429), or the call is a read (a 5xx or a lost answer to a GET changes nothing).
 * - `in-doubt`: a create or cancel may have taken effect: sent and no answer came (timeout, reset), an answer we
 *   could not read, or a 5xx (`server`: a gateway answers 502/503/504, a service 500, after the write may have
 *   happened); reconcile (look it up) before sending again.
 * - `auth`: 401; refresh the sign-in, then retry.
 * - `rejected`: 400/403/404; a person must look at it. `fields` names what was wrong when the service says.
 */
export const serviceErrorSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('retryable'),
    reason: z.enum(['network', 'server', 'rate-limited', 'unreadable-response']),
    status: z.number().int().optional(),
    retryAfterMs: z.number().int().nonnegative().optional(),
    message: z.string(),
    /**
     * Waiting alone will not end it: the environment's settings (its address, API version) or the service's
     * certificate must change first (a TLS failure, a call the address does not offer). Still retried.
     */
    settings: z.literal(true).optional(),
  }),
  z.object({
    kind: z.literal('in-doubt'),
    reason: z.enum(['timeout', 'reset', 'unreadable-response', 'server']),
    status: z.number().int().optional(),
    retryAfterMs: z.number().int().nonnegative().optional(),
    message: z.string(),
  }),
  z.object({ kind: z.literal('auth'), status: z.number().int(), message: z.string() }),
  z.object({
    kind: z.literal('rejected'),
    status: z.number().int(),
    message: z.string(),
    fields: z.array(fieldErrorSchema),
    envelope: envelopeMarkSchema.optional(),
    /** A lookup of one order answered with nothing (`204`, an empty body, `null`): the service has no such order. */
    noSuchOrder: z.literal(true).optional(),
  }),
]);
export type ServiceError = z.infer<typeof serviceErrorSchema>;
export type ServiceErrorKind = ServiceError['kind'];

/** The outcome of one service call: a value, or an error the caller can act on. */
export function serviceResultSchema<T extends z.ZodType>(value: T) {
  return z.discriminatedUnion('ok', [
    z.object({ ok: z.literal(true), value }),
    z.object({ ok: z.literal(false), error: serviceErrorSchema }),
  ]);
}
export type ServiceResult<T> = { ok: true; value: T } | { ok: false; error: ServiceError };

/**
 * Errors of the contract itself (bad input, unknown call, refused sender), as they cross any transport, and
 * `failed`: a call that could not do its work for a reason the app words for the admin (its message is that
 * sentence, e.g. "Could not reach the identity server (ECONNREFUSED …)"), as opposed to `internal`, whose details
 * never cross the boundary.
 */
export const contractErrorSchema = z.object({
  code: z.enum(['invalid-input', 'unknown-call', 'forbidden', 'internal', 'disconnected', 'failed']),
  message: z.string(),
  issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
});
export type ContractErrorInfo = z.infer<typeof contractErrorSchema>;

export class ContractError extends Error {
  readonly code: ContractErrorInfo['code'];
  readonly issues: ContractErrorInfo['issues'];
  constructor(info: ContractErrorInfo) {
    super(info.message);
    this.name = 'ContractError';
    this.code = info.code;
    this.issues = info.issues;
  }
  toInfo(): ContractErrorInfo {
    return { code: this.code, message: this.message, ...(this.issues ? { issues: this.issues } : {}) };
  }
}

const MAX_MESSAGE = 500;
const MAX_FIELDS = 50;

/** A short text from a string, a number, or a list of them ("a; b"); undefined for anything else. */
function textIn(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() || undefined;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) {
    const parts = value.map(textIn).filter((part): part is string => part !== undefined);
    return parts.length > 0 ? parts.join('; ') : undefined;
  }
  if (value !== null && typeof value === 'object') return textIn(keyed(value).get('message'));
  return undefined;
}

/** An object's own keys, case-insensitively (`Message`, `message`, `MESSAGE`). */
function keyed(value: object): Map<string, unknown> {
  return new Map(Object.entries(value).map(([key, inner]) => [key.toLowerCase(), inner]));
}

/**
 * Field errors in the shapes services use: a list of `{ field | propertyName | name | path, message |
 * errorMessage }`, one such object, or a map from field to messages (ASP.NET's `errors`, Web API's `ModelState`).
 */
function fieldsIn(value: unknown): FieldError[] {
  const out: FieldError[] = [];
  const one = (item: unknown) => {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) return false;
    const keys = keyed(item);
    const field = textIn(keys.get('field') ?? keys.get('propertyname') ?? keys.get('name') ?? keys.get('path'));
    const message = textIn(keys.get('message') ?? keys.get('errormessage') ?? keys.get('error'));
    if (field === undefined || message === undefined) return false;
    out.push({ field: field.slice(0, 200), message: message.slice(0, MAX_MESSAGE) });
    return true;
  };
  if (Array.isArray(value)) value.forEach(one);
  else if (!one(value) && value !== null && typeof value === 'object') {
    for (const [field, messages] of Object.entries(value)) {
      const message = textIn(messages);
      if (message !== undefined) out.push({ field: field.slice(0, 200), message: message.slice(0, MAX_MESSAGE) });
    }
  }
  return out.slice(0, MAX_FIELDS);
}

/**
 * An error body that is not the documented envelope but says something: `{ error }` without a status, a message
 * as a list, `{ error: { message } }`, RFC 9457 problem details (`title`, `detail`, ASP.NET's `errors` map), a
 * Web API `Message`/`ModelState`. The service is not ours to choose: read what it means rather than show raw JSON.
 */
function describeOtherObject(body: object): { message: string; fields: FieldError[] } | undefined {
  const keys = keyed(body);
  const error = keys.get('error');
  const primary = textIn(error) ?? textIn(keys.get('title')) ?? textIn(keys.get('message'));
  const detail =
    textIn(keys.get('detail')) ??
    textIn(keys.get('details')) ??
    textIn(keys.get('error_description')) ??
    (primary !== textIn(keys.get('message')) ? textIn(keys.get('message')) : undefined);
  const fields = [
    ...fieldsIn(keys.get('details')),
    ...fieldsIn(keys.get('errors')),
    ...fieldsIn(keys.get('validationerrors')),
    ...fieldsIn(keys.get('modelstate')),
    ...(error !== null && typeof error === 'object' && !Array.isArray(error)
      ? fieldsIn(keyed(error).get('details'))
      : []),
  ].slice(0, MAX_FIELDS);
  const message = primary && detail && detail !== primary ? `${primary}: ${detail}` : (primary ?? detail);
  if (message === undefined) return fields.length > 0 ? { message: fields[0]!.message, fields } : undefined;
  return { message: message.slice(0, MAX_MESSAGE), fields };
}

/** Reads whatever the service sent back on failure: the envelope when it is one, else a short plain text. */
export function describeErrorBody(
  body: unknown,
  rawText: string,
): {
  message: string;
  fields: FieldError[];
  envelope?: EnvelopeMark;
} {
  const parsed = errorEnvelopeSchema.safeParse(body);
  if (parsed.success) {
    const { details } = parsed.data;
    const fields = Array.isArray(details) ? details : details && 'field' in details ? [details] : [];
    const detailMessage = details && !Array.isArray(details) ? details.message : undefined;
    const message =
      detailMessage && detailMessage !== parsed.data.error
        ? `${parsed.data.error}: ${detailMessage}`
        : parsed.data.error;
    // Each field cut as fieldsIn cuts them: kept whole, a service's megabytes went to every pattern read over them.
    const cut = fields.slice(0, MAX_FIELDS).map((field) => ({
      field: field.field.slice(0, 200),
      message: field.message.slice(0, MAX_MESSAGE),
    }));
    return { message: message.slice(0, MAX_MESSAGE), fields: cut, envelope: { status: parsed.data.status } };
  }
  if (Array.isArray(body)) {
    // A bare list of errors.
    const fields = fieldsIn(body);
    const message = textIn(body) ?? (fields.length > 0 ? fields.map((field) => field.message).join('; ') : undefined);
    if (message !== undefined) return { message: message.slice(0, MAX_MESSAGE), fields };
  } else if (body !== null && typeof body === 'object') {
    const other = describeOtherObject(body);
    if (other) return other;
  }
  if (typeof body === 'string' && body.trim()) return { message: body.trim().slice(0, MAX_MESSAGE), fields: [] };
  const plain = rawText.trim();
  return { message: plain ? plain.slice(0, MAX_MESSAGE) : 'the service gave no explanation', fields: [] };
}
