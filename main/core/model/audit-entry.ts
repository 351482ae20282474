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
/** The serialisation a keyed link covers: v1's fields plus the key's id. */
const KEYED_FORMAT = 'rx-batch-audit-v2';
/** The compact keyed link's (scheme 3): v2's fields with the time as the milliseconds the entry keeps. */
const SHORT_KEYED_FORMAT = 'rx-batch-audit-v3';

/**
 * How an entry's link was made, per entry (migrations 12 and 21): `1` a plain SHA-256 anyone can recompute (entries
 * written without the key), `2` an HMAC-SHA256 under the audit key named by `keyId` (see chain-key.ts; entries
 * before migration 21), `3` the same HMAC over the compact serialisation, cut to 16 bytes (every keyed entry since).
 * A keyed link covers the previous link, so the first keyed entry seals the plain ones.
 */
export const LINK_PLAIN = 1;
export const LINK_KEYED = 2;
export const LINK_KEYED_SHORT = 3;
export type LinkScheme = typeof LINK_PLAIN | typeof LINK_KEYED | typeof LINK_KEYED_SHORT;

/** A compact keyed link: the first 16 bytes of the HMAC, as 32 hex digits. */
const SHORT_LINK_HEX = 32;

/** What a keyed link needs of a key: its id (kept in the entry) and a MAC over text. */
export interface LinkKey {
  readonly id: string;
  mac(text: string): string;
}

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

/**
 * A row as verification reads it: with how its link was made and its time as stored (milliseconds or text), and no
 * previous link (`prevHash` empty): the walk has it, the row before's.
 */
export interface ChainRow extends AuditRow {
  linkScheme: LinkScheme;
  keyId: string | null;
  /** The milliseconds the entry keeps; null for an older entry kept with its time as text. */
  atMs: number | null;
}

export function toAuditEntry(row: AuditRow): AuditEntry {
  const { detailsJson, ...rest } = row;
  return { ...rest, details: JSON.parse(detailsJson) as AuditDetails };
}

/** An entry's own fields, in the fixed order both link kinds cover (the previous link is added last). */
function linkedFields(row: Omit<AuditRow, 'hash'>): unknown[] {
  return [
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
  ];
}

/**
 * SHA-256 over a JSON array of every field but the hash itself, in a fixed order. A JSON array of strings,
 * numbers and nulls has exactly one serialisation, which is what makes it canonical.
 */
export function auditHash(row: Omit<AuditRow, 'hash'>): string {
  const canonical = JSON.stringify([HASH_FORMAT, ...linkedFields(row), row.prevHash]);
  return createHash('sha256').update(canonical, 'utf8').digest('hex');
}

/**
 * The keyed link: HMAC-SHA256 under `key` over the same fields as `auditHash` (the previous link included) and
 * the key's id, in a serialisation of its own, so a plain hash and a keyed link never stand for each other.
 */
export function keyedAuditLink(row: Omit<AuditRow, 'hash'>, key: LinkKey): string {
  return key.mac(JSON.stringify([KEYED_FORMAT, ...linkedFields(row), key.id, row.prevHash]));
}

/**
 * The compact keyed link (scheme 3): the HMAC over v2's fields, with the time as the milliseconds the entry keeps
 * (`atMs`) in place of its text, in a serialisation of its own, cut to 16 bytes.
 */
export function shortKeyedAuditLink(row: Omit<AuditRow, 'hash'>, atMs: number, key: LinkKey): string {
  const [seq, , ...rest] = linkedFields(row);
  return key
    .mac(JSON.stringify([SHORT_KEYED_FORMAT, seq, atMs, ...rest, key.id, row.prevHash]))
    .slice(0, SHORT_LINK_HEX);
}
