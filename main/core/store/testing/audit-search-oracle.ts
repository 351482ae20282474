import type { AuditRow } from '../../model/audit-entry.js';
import { VARYING_DETAIL_KEYS } from '../audit-details-split.js';
import { UNSEARCHED_DETAIL_KEYS } from '../migrations/021-compact-audit-log.js';

const UNSEARCHED: readonly string[] = UNSEARCHED_DETAIL_KEYS;

/**
 * What the log's free-text search matches in an entry, worked out here from the entry as read (not by the SQL the
 * search runs): its clinic code and clinic order id, and the values of its details but those of
 * `UNSEARCHED_DETAIL_KEYS`, in the details' order, lower-case.
 */
export function searchableText(row: AuditRow): string {
  const entries = Object.entries(JSON.parse(row.detailsJson) as Record<string, unknown>).filter(
    ([key]) => !UNSEARCHED.includes(key),
  );
  // The shared part's values first, then the entry's own (as the compact log keeps them: audit-details-split.ts).
  const values = (own: boolean) =>
    entries.filter(([key]) => VARYING_DETAIL_KEYS.has(key) === own).map(([, value]) => String(value));
  return [`${row.clinicCode ?? ''} ${row.clinicOrderId ?? ''}`, values(false).join(' '), values(true).join(' ')]
    .join(' ')
    .toLowerCase();
}
