import { z } from 'zod';

/** What the UI sees of the audit log: its entries (identifiers only, no patient data) and what `log verify` found. */

const isoTime = z.string().min(1).max(40);

export const auditEntryViewSchema = z.object({
  seq: z.number().int().positive(),
  at: isoTime,
  actor: z.enum(['user', 'submitter', 'system']),
  action: z.string(),
  environmentId: z.string().nullable(),
  batchId: z.number().int().nullable(),
  orderId: z.number().int().nullable(),
  clinicCode: z.string().nullable(),
  clinicOrderId: z.string().nullable(),
  details: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
  prevHash: z.string(),
  hash: z.string(),
});
export type AuditEntryView = z.infer<typeof auditEntryViewSchema>;

/**
 * What `log verify` found wrong at the first entry concerned (`brokenAt`): `missing` entries before it (seq
 * gap), `altered` (content no longer matches its link, which covers the previous link too),
 * `unkeyed` (a plain link where entries are keyed: written without the key), `unknown-key` (keyed with a key
 * this program does not hold), `diverged` (not the entry recorded outside the database at that seq), `truncated`
 * (the log ends before the recorded head: cut short or rolled back). See main/core/audit/verify-chain.ts.
 */
export const AUDIT_CHAIN_PROBLEMS = ['missing', 'altered', 'unkeyed', 'unknown-key', 'diverged', 'truncated'] as const;

export const auditChainReportSchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), count: z.number().int().nonnegative() }),
  z.object({
    ok: z.literal(false),
    brokenAt: z.number().int(),
    problem: z.enum(AUDIT_CHAIN_PROBLEMS),
    reason: z.string(),
  }),
]);
