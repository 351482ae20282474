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
    envelope: errorEnvelopeSchema.optional(),
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

/** Reads whatever the service sent back on failure: the envelope when it is one, else a short plain text. */
export function describeErrorBody(
  body: unknown,
  rawText: string,
): {
  message: string;
  fields: FieldError[];
  envelope?: ErrorEnvelope;
} {
  const parsed = errorEnvelopeSchema.safeParse(body);
  if (parsed.success) {
    const { details } = parsed.data;
    const fields = Array.isArray(details) ? details : details && 'field' in details ? [details] : [];
    const detailMessage = details && !Array.isArray(details) ? details.message : undefined;
    return {
      message:
        detailMessage && detailMessage !== parsed.data.error
          ? `${parsed.data.error}: ${detailMessage}`
          : parsed.data.error,
      fields,
      envelope: parsed.data,
    };
  }
  if (typeof body === 'string' && body.trim()) return { message: body.trim().slice(0, 500), fields: [] };
  const plain = rawText.trim();
  return { message: plain ? plain.slice(0, 500) : 'the service gave no explanation', fields: [] };
}
