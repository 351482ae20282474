import type Database from 'better-sqlite3';
import { canonicalDetailsJson, checkAuditDetails } from '../../model/audit-details.js';
import {
  auditHash,
  GENESIS_HASH,
  keyedAuditLink,
  type AuditInput,
  type AuditRow,
  type LinkKey,
} from '../../model/audit-entry.js';

/**
 * Appends an entry as releases before migration 12 did (and as an attacker without the key can): the twelve
 * columns of migration 2, linked by a plain SHA-256. With `key` (a store from migration 12 to 20), as those
 * releases appended keyed entries: link scheme 2. For building older files and tampering in tests.
 */
export function appendLegacyEntry(db: Database.Database, input: AuditInput, at: string, key?: LinkKey): AuditRow {
  const last = db
    .prepare<[], { seq: number; hash: string }>('SELECT seq, hash FROM audit_entries ORDER BY seq DESC LIMIT 1')
    .get();
  const unhashed: Omit<AuditRow, 'hash'> = {
    seq: (last?.seq ?? 0) + 1,
    at,
    actor: input.actor,
    action: input.action,
    environmentId: input.environmentId ?? null,
    batchId: input.batchId ?? null,
    orderId: input.orderId ?? null,
    clinicCode: input.clinicCode ?? null,
    clinicOrderId: input.clinicOrderId ?? null,
    detailsJson: canonicalDetailsJson(checkAuditDetails(input.details)),
    prevHash: last?.hash ?? GENESIS_HASH,
  };
  const row: AuditRow = { ...unhashed, hash: key ? keyedAuditLink(unhashed, key) : auditHash(unhashed) };
  const keyed = key ? { columns: ', link_scheme, key_id', values: ', 2, @keyId' } : { columns: '', values: '' };
  db.prepare(
    `INSERT INTO audit_entries
       (seq, at, actor, action, environment_id, batch_id, order_id, clinic_code, clinic_order_id, details, prev_hash, hash
        ${keyed.columns})
     VALUES (@seq, @at, @actor, @action, @environmentId, @batchId, @orderId, @clinicCode, @clinicOrderId, @detailsJson,
       @prevHash, @hash ${keyed.values})`,
  ).run(key ? { ...row, keyId: key.id } : row);
  return row;
}
