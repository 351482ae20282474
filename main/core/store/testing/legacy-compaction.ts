import type Database from 'better-sqlite3';
import { encodeProvenance } from '../provenance-codec.js';

/**
 * Compacts staged rows as retention did before the smaller form (compacted-staged-rows.ts): identity and file name
 * kept, `'{}'`, `'[]'` and an empty version-2 provenance, the records or HL7 message dropped, the time of day. For
 * building a store an earlier version compacted, in tests.
 */
export function compactAsBefore(db: Database.Database, stagedIds: readonly number[], at: string): void {
  db.prepare(
    `UPDATE staged_orders SET body = '{}', problems = '[]', provenance = ?,
       source = json_remove(source, '$.records', '$.hl7'), compacted_at = ?
     WHERE id IN (SELECT value FROM json_each(?))`,
  ).run(encodeProvenance({}, { file: '' }), at, JSON.stringify(stagedIds));
}
