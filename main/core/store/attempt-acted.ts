import type { AttemptRecord } from './attempts-repo.js';

/**
 * Whether an attempt's answer leaves open that the service acted on it: in doubt (no answer, an unreadable one, a
 * 5xx or 408 to a create or cancel), or a 5xx/408 that a version before this rule recorded as retryable. Only such
 * an attempt makes a later "duplicate clinicOrderId" mean "created", and an order after one is looked up before it
 * is sent again.
 */
export function mayHaveActed(attempt: Pick<AttemptRecord, 'outcome' | 'httpStatus'>): boolean {
  if (attempt.outcome === 'in-doubt') return true;
  const status = attempt.httpStatus ?? 0;
  return attempt.outcome === 'retryable' && (status >= 500 || status === 408);
}
