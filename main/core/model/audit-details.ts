import { z } from 'zod';
import { DESCRIBED_RULES_MAX } from '../../../shared/intake-rules.js';
import { BINDING_DESCRIPTION_MAX } from './sender-binding-input.js';

/**
 * What an audit entry's `details` may hold: an allow-list of operational keys. Anything else (a token, a
 * patient's name, a request body) is refused, so a careless caller fails loudly instead of leaking into a log
 * that is exported and kept for years. Free texts the service sends back are length-capped and scrubbed of
 * anything shaped like a credential.
 */

const ERROR_KINDS = ['retryable', 'in-doubt', 'auth', 'rejected'] as const;
/** The front end an admin acted through (the contract's transports). */
const FRONT_ENDS = ['electron', 'browser', 'direct'] as const;
/**
 * Why live intake refused a connection on connect: the allow-list, an HTTP request, bytes that are not MLLP (a TLS
 * handshake to a plain listener, another protocol), a failed mutual-TLS handshake.
 */
export const PEER_REFUSAL_REASONS = ['allow-list', 'http', 'not-mllp', 'tls'] as const;
export type PeerRefusalAuditReason = (typeof PEER_REFUSAL_REASONS)[number];

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
    /** Enrichment (a batch checked with the service): distinct dm+d codes asked about, warnings, items not checked. */
    codeCount: z.number().int().nonnegative(),
    warningCount: z.number().int().nonnegative(),
    uncheckedCount: z.number().int().nonnegative(),
    /** Retention: the days staging copies are now kept (store/retention-repo.ts; absent with outcome "kept for ever"). */
    retentionDays: z.number().int().min(1).max(36_500),
    /** Which front end an admin's action came through (e.g. who viewed an order's source: the desktop app or a browser). */
    via: z.enum(FRONT_ENDS),
    /**
     * An environment's identity (API origin, identity server, client id) before and after an edit that changed
     * it: addresses and a public client id, never a secret.
     */
    apiOrigin: shortText(300),
    previousApiOrigin: shortText(300),
    issuer: shortText(300),
    previousIssuer: shortText(300),
    clientId: shortText(200),
    previousClientId: shortText(200),
    previousGrant: shortText(40),
    /** Live intake (main/core/intake/): the peer's address and port, the message's MSH-10, its sender (MSH-3^MSH-4). */
    peer: shortText(100),
    controlId: shortText(200),
    sender: shortText(200),
    /**
     * Retention: the days staging copies were kept before a change (absent when they were kept for ever). Last, so
     * the export's columns before it stay where they were.
     */
    previousRetentionDays: z.number().int().min(1).max(36_500),
    /**
     * Live intake's staging rules of an environment after and before a change, in one line
     * (`hold; send: EPR-7^CLINIC-H, LAB`, shared/intake-rules.ts): rules and sender names, never message text.
     */
    intakeRules: shortText(DESCRIBED_RULES_MAX),
    previousIntakeRules: shortText(DESCRIBED_RULES_MAX),
    /**
     * Live intake's binding of an HL7 profile's sender after and before a change (finding 27), in one line
     * (`EPR-7^CLINIC-H (profile EPR-A): clinics C1; peers 10.20.0.0/16`): sender, profile, codes and addresses.
     */
    binding: shortText(BINDING_DESCRIPTION_MAX),
    previousBinding: shortText(BINDING_DESCRIPTION_MAX),
    /** Live intake: further connections of a peer refused for one reason, counted into one entry (finding 44). */
    connectionCount: z.number().int().nonnegative(),
    /**
     * Live intake: why a connection was refused on connect (finding 44), where `outcome` says only `peer` (kept for
     * what reads it). One of three words, so nothing a peer sent can reach the log through it. Last, as above.
     */
    reason: z.enum(PEER_REFUSAL_REASONS),
  })
  .partial();

export type AuditDetails = z.infer<typeof auditDetailsSchema>;
export type AuditDetailKey = keyof AuditDetails;

/** Column order for exports: every allowed key, always in this order. */
export const AUDIT_DETAIL_KEYS = Object.keys(auditDetailsSchema.shape) as AuditDetailKey[];

/** A check that accepts a value only if the schema's rule for its key does (it may refuse more). */
type FastCheck = (value: unknown) => boolean;
const text =
  (max: number): FastCheck =>
  (value) =>
    typeof value === 'string' && value.length <= max;
const count: FastCheck = (value) => Number.isSafeInteger(value) && (value as number) >= 0;
const oneOf =
  (values: readonly string[]): FastCheck =>
  (value) =>
    typeof value === 'string' && values.includes(value);

/**
 * The schema's rules again as plain checks, because zod costs more than the rest of an audit append and the
 * submitter appends one entry per answer. Never more permissive than the schema (audit-details.test.ts checks
 * each against it): details they all pass are accepted as they are; anything else, or a key without a check
 * here, goes to the schema, which decides and words the error.
 */
const FAST_CHECKS: Partial<Record<AuditDetailKey, FastCheck>> = {
  operation: text(40),
  outcome: text(40),
  httpStatus: (value) => Number.isSafeInteger(value) && (value as number) >= 100 && (value as number) <= 599,
  latencyMs: count,
  connectionCount: count,
  retryAfterMs: count,
  errorKind: oneOf(ERROR_KINDS),
  errorMessage: text(1000),
  errorField: text(200),
  remoteId: text(64),
  remoteStatus: text(100),
  fromState: text(40),
  toState: text(40),
  attempt: count,
  orderCount: count,
  rowCount: count,
  invalidCount: count,
  fileName: text(255),
  fileKind: oneOf(['csv', 'hl7', 'json']),
  grant: text(40),
  format: text(20),
  masked: (value) => typeof value === 'boolean',
  fieldPath: text(200),
  route: oneOf(['v1', 'v2', 'hl7']),
  codeCount: count,
  warningCount: count,
  uncheckedCount: count,
  retentionDays: (value) => Number.isSafeInteger(value) && (value as number) >= 1 && (value as number) <= 36_500,
  via: oneOf(FRONT_ENDS),
  apiOrigin: text(300),
  previousApiOrigin: text(300),
  issuer: text(300),
  previousIssuer: text(300),
  clientId: text(200),
  previousClientId: text(200),
  previousGrant: text(40),
  peer: text(100),
  controlId: text(200),
  sender: text(200),
  previousRetentionDays: (value) =>
    Number.isSafeInteger(value) && (value as number) >= 1 && (value as number) <= 36_500,
  intakeRules: text(DESCRIBED_RULES_MAX),
  previousIntakeRules: text(DESCRIBED_RULES_MAX),
  binding: text(BINDING_DESCRIPTION_MAX),
  previousBinding: text(BINDING_DESCRIPTION_MAX),
  reason: oneOf(PEER_REFUSAL_REASONS),
};

/** Whether every value passes its fast check (undefined values are left out, as the schema allows). */
export function passesFastChecks(details: object): boolean {
  for (const [key, value] of Object.entries(details)) {
    if (value === undefined) continue;
    const check = Object.hasOwn(FAST_CHECKS, key) ? FAST_CHECKS[key as AuditDetailKey] : undefined;
    if (!check?.(value)) return false;
  }
  return true;
}

export class AuditDetailsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AuditDetailsError';
  }
}

const BEARER = /\bBearer\s+[A-Za-z0-9\-._~+/]+=*/gi;
const JWT = /\beyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g;

/** Matches wherever either pattern could start (a superset of both), so text without it needs no replacing. */
const MAY_HOLD_CREDENTIAL = /bearer|eyJ/i;

/** A service's error text can echo a request header back; never let a credential reach the log. */
export function scrubCredentials(text: string): string {
  // Most texts (states, operations, ids: five per submitter entry) hold neither; one test is cheaper than two replaces.
  if (!MAY_HOLD_CREDENTIAL.test(text)) return text;
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
  if (passesFastChecks(details)) return scrubbed(details);
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
  return scrubbed(parsed.data);
}

function scrubbed(details: object): AuditDetails {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(details)) {
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
