import type { Store } from '../store/store.js';
import { auditHash, GENESIS_HASH } from './audit-entry.js';

export type AuditChainReport = { ok: true; count: number } | { ok: false; brokenAt: number; reason: string };

/**
 * Walks the chain from the first entry and reports the first broken link: a missing seq, a prev_hash that is
 * not the previous entry's hash, or a hash that does not match the entry's content. Synchronous, streaming
 * rows one at a time. It cannot see entries cut off the end: the chain up to there is still intact.
 */
export function verifyAuditChain(store: Store): AuditChainReport {
  let expectedSeq = 1;
  let prevHash = GENESIS_HASH;
  for (const row of store.audit.rows()) {
    if (row.seq !== expectedSeq) {
      return {
        ok: false,
        brokenAt: row.seq,
        reason: `entry ${row.seq} follows ${expectedSeq - 1}: entries are missing`,
      };
    }
    if (row.prevHash !== prevHash) {
      return { ok: false, brokenAt: row.seq, reason: "prev_hash is not the previous entry's hash" };
    }
    if (auditHash(row) !== row.hash) {
      return { ok: false, brokenAt: row.seq, reason: "hash does not match the entry's content" };
    }
    prevHash = row.hash;
    expectedSeq += 1;
  }
  return { ok: true, count: expectedSeq - 1 };
}
