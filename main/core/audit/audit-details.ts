import { z } from 'zod';

/**
 * What an audit entry's `details` may hold: an allow-list of operational keys. Anything else (a token, a
 * patient's name, a request body) is refused, so a careless caller fails loudly instead of leaking into a log
 * that is exported and kept for years. Free texts the service sends back are length-capped and scrubbed of
 * anything shaped like a credential.
 */

const ERROR_KINDS = ['retryable', 'in-doubt', 'auth', 'rejected'] as const;

const shortText = (max: number) => z.string().max(max);

export const auditDetailsSchema = z
  .strictObject({
    /** Service operation: create, lookup, status, cancel, sign-in… */
    operation: shortText(40),
    outcome: shortText(40),
    httpStatus: z.number().int().min(100).max(599),
    latencyMs: z.number().int().nonnegative(),
    retryAfterMs: z.number().int().nonnegative(),
    errorKind: z.enum(ERROR_KINDS),
    errorMessage: shortText(1000),
    errorField: shortText(200),
    /** The id the service assigned (pharmacy order id). */
    remoteId: shortText(64),
    remoteStatus: shortText(100),
    fromState: shortText(40),
    toState: shortText(40),
    attempt: z.number().int().nonnegative(),
    orderCount: z.number().int().nonnegative(),
    rowCount: z.number().int().nonnegative(),
    invalidCount: z.number().int().nonnegative(),
    fileName: shortText(255),
    fileKind: z.enum(['csv', 'hl7', 'json']),
    grant: shortText(40),
    format: shortText(20),
    masked: z.boolean(),
    /** A body field an edit changed (its path only, never its value), e.g. `customer.dateOfBirth`. */
    fieldPath: shortText(200),
    /** How a batch's orders are sent: v1 create-with-clinic, v2 create, or the HL7 message forwarded. */
    route: z.enum(['v1', 'v2', 'hl7']),
  })
  .partial();

export type AuditDetails = z.infer<typeof auditDetailsSchema>;
export type AuditDetailKey = keyof AuditDetails;

/** Column order for exports: every allowed key, always in this order. */
export const AUDIT_DETAIL_KEYS = Object.keys(auditDetailsSchema.shape) as AuditDetailKey[];

export class AuditDetailsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AuditDetailsError';
  }
}

const BEARER = /\bBearer\s+[A-Za-z0-9\-._~+/]+=*/gi;
const JWT = /\beyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g;

/** A service's error text can echo a request header back; never let a credential reach the log. */
export function scrubCredentials(text: string): string {
  return text.replace(BEARER, 'Bearer [redacted]').replace(JWT, '[redacted-jwt]');
}

/**
 * Checks details against the allow-list and returns them scrubbed. Throws AuditDetailsError naming the
 * offending keys (never their values, which may be exactly what must not be written anywhere).
 */
export function checkAuditDetails(details: unknown): AuditDetails {
  if (details === undefined || details === null) return {};
  if (typeof details !== 'object' || Array.isArray(details))
    throw new AuditDetailsError('audit details must be an object');
  const unknownKeys = Object.keys(details).filter((key) => !(AUDIT_DETAIL_KEYS as string[]).includes(key));
  if (unknownKeys.length > 0) {
    throw new AuditDetailsError(
      `audit details may not hold ${unknownKeys.map((key) => `"${key}"`).join(', ')}; allowed: ${AUDIT_DETAIL_KEYS.join(', ')}`,
    );
  }
  const parsed = auditDetailsSchema.safeParse(details);
  if (!parsed.success) {
    const where = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
    throw new AuditDetailsError(`audit details are not valid (${where})`);
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(parsed.data)) {
    if (value === undefined) continue;
    out[key] = typeof value === 'string' ? scrubCredentials(value) : value;
  }
  return out;
}

/** Details as stored and hashed: keys sorted, so the same details always give the same text. */
export function canonicalDetailsJson(details: AuditDetails): string {
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(details).sort()) sorted[key] = details[key as AuditDetailKey];
  return JSON.stringify(sorted);
}
