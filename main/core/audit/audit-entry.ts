import { createHash } from 'node:crypto';
import type { AuditDetails } from './audit-details.js';

/** One line of the append-only audit log, and the hash that chains it to the line before. */

export const AUDIT_ACTORS = ['user', 'submitter', 'system'] as const;
export type AuditActor = (typeof AUDIT_ACTORS)[number];

/** `batch.accepted`, `order.attempt`, `signin`: lower-case words joined by dots. */
export const AUDIT_ACTION_PATTERN = /^[a-z][a-z-]*(\.[a-z][a-z-]*)*$/;

/** The first entry's `prevHash`. */
export const GENESIS_HASH = '0'.repeat(64);

/** Bumped only if the hashed serialisation ever changes, so old chains still verify under their version. */
const HASH_FORMAT = 'rx-batch-audit-v1';

/** What a caller supplies; the store adds seq, time and hashes. Identifiers are allowed, patient fields are not. */
export interface AuditInput {
  actor: AuditActor;
  action: string;
  environmentId?: string | null;
  batchId?: number | null;
  orderId?: number | null;
  clinicCode?: string | null;
  clinicOrderId?: string | null;
  details?: AuditDetails;
}

/** An entry as stored, with `details` in its canonical JSON text (the exact text that was hashed). */
export interface AuditRow {
  seq: number;
  at: string;
  actor: AuditActor;
  action: string;
  environmentId: string | null;
  batchId: number | null;
  orderId: number | null;
  clinicCode: string | null;
  clinicOrderId: string | null;
  detailsJson: string;
  prevHash: string;
  hash: string;
}

export interface AuditEntry extends Omit<AuditRow, 'detailsJson'> {
  details: AuditDetails;
}

export function toAuditEntry(row: AuditRow): AuditEntry {
  const { detailsJson, ...rest } = row;
  return { ...rest, details: JSON.parse(detailsJson) as AuditDetails };
}

/**
 * SHA-256 over a JSON array of every field but the hash itself, in a fixed order. A JSON array of strings,
 * numbers and nulls has exactly one serialisation, which is what makes it canonical.
 */
export function auditHash(row: Omit<AuditRow, 'hash'>): string {
  const canonical = JSON.stringify([
    HASH_FORMAT,
    row.seq,
    row.at,
    row.actor,
    row.action,
    row.environmentId,
    row.batchId,
    row.orderId,
    row.clinicCode,
    row.clinicOrderId,
    row.detailsJson,
    row.prevHash,
  ]);
  return createHash('sha256').update(canonical, 'utf8').digest('hex');
}
