import { canonicalDetailsJson, type AuditDetails } from '../model/audit-details.js';

/**
 * How the compact audit log (migration 21) stores an entry's details: the part that repeats across entries (the
 * operation, outcome, states, status…) as a text kept once in `audit_details`, and the values that differ from entry
 * to entry (a latency, the service's order id, a control id, a peer's port, counts, a file name, a message) in the
 * entry itself (`detail_values`, a JSON array; the shared row names their keys). The canonical text the link covers
 * is made again from the two, exactly: the keys are disjoint, and `canonicalDetailsJson` sorts keys, so putting them
 * together and writing them again gives the same text. A text that would not come back exactly is kept whole. Which keys go where only decides how
 * much is shared, never what is read back.
 */
export const VARYING_DETAIL_KEYS: ReadonlySet<string> = new Set([
  'latencyMs',
  'retryAfterMs',
  'remoteId',
  'controlId',
  'peer',
  'connectionCount',
  'orderCount',
  'rowCount',
  'invalidCount',
  'codeCount',
  'warningCount',
  'uncheckedCount',
  'fileName',
  'errorMessage',
]);

export interface SplitDetails {
  /** The shared part's canonical text. */
  common: string;
  /** The keys of the entry's own values, in their (sorted) order, joined by commas; empty when it has none. */
  ownKeys: string;
  /** The entry's own values as a JSON array in `ownKeys` order, or null when it has none (or the text is whole). */
  values: string | null;
}

const whole = (detailsJson: string): SplitDetails => ({ common: detailsJson, ownKeys: '', values: null });

export function splitDetails(detailsJson: string): SplitDetails {
  let details: unknown;
  try {
    details = JSON.parse(detailsJson);
  } catch {
    return whole(detailsJson);
  }
  if (details === null || typeof details !== 'object' || Array.isArray(details)) return whole(detailsJson);
  const common: Record<string, unknown> = {};
  const keys: string[] = [];
  const values: unknown[] = [];
  for (const [key, value] of Object.entries(details)) {
    if (VARYING_DETAIL_KEYS.has(key)) {
      keys.push(key);
      values.push(value);
    } else common[key] = value;
  }
  if (keys.length === 0) return whole(detailsJson);
  const split = {
    common: canonicalDetailsJson(common),
    ownKeys: keys.join(','),
    values: JSON.stringify(values),
  };
  // Kept apart only when the two make the same text again.
  return joinDetails(split.common, split.ownKeys, split.values) === detailsJson ? split : whole(detailsJson);
}

/**
 * `splitDetails` for details as the append has them (checked: texts, safe integers, booleans, each of which JSON
 * writes and reads back as it was), without reading their text again: `detailsJson` must be their canonical text.
 */
export function splitCheckedDetails(details: AuditDetails, detailsJson: string): SplitDetails {
  const common: Record<string, unknown> = {};
  const keys: string[] = [];
  const values: unknown[] = [];
  for (const key of Object.keys(details).sort()) {
    const value = details[key as keyof AuditDetails];
    if (VARYING_DETAIL_KEYS.has(key)) {
      keys.push(key);
      values.push(value);
    } else common[key] = value;
  }
  if (keys.length === 0) return whole(detailsJson);
  return { common: JSON.stringify(common), ownKeys: keys.join(','), values: JSON.stringify(values) };
}

/** The canonical details text of an entry from its shared text and its own values. */
export function joinDetails(common: string, ownKeys: string, values: string | null): string {
  if (values === null) return common;
  const own = JSON.parse(values) as unknown[];
  const details = JSON.parse(common) as Record<string, unknown>;
  ownKeys.split(',').forEach((key, index) => {
    details[key] = own[index];
  });
  return canonicalDetailsJson(details);
}
