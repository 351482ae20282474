import type { ServiceError } from '../../../shared/errors.js';
import type { ExchangeResult } from './http-exchange.js';

/**
 * A 2xx to a read of one order (`status`, `status-clinic-ordernumber`) that names no order. The contract's "not
 * found" is a 404 or 400; ASP.NET Core says the same with a 204 (an action that returned null), or a 200 with an empty
 * body or `null` (its no-content formatter off), and a service that answers every status read as a list says it with
 * `[]`. Read as unreadable, the admin's lookup showed a failure where the service had said "none".
 */

type Response = Extract<ExchangeResult, { kind: 'response' }>;

/** What the answer says nothing with, in words for the message; undefined when it says something. */
export function nothingSaid(response: Response): string | undefined {
  if (response.truncated || response.unreadable) return undefined;
  const text = response.text.trim();
  if (response.status === 204 && text === '') return '204 No Content';
  if (text === '') return `${response.status} with an empty body`;
  return text === 'null' ? `${response.status} with null` : undefined;
}

/** The service's "none", as `saysNoSuchOrder` reads it. */
export function noSuchOrder(status: number, nothing: string): ServiceError {
  return {
    kind: 'rejected',
    status,
    message: `no such order: the service answered ${nothing} to a lookup of one order (it names none)`,
    fields: [],
    noSuchOrder: true,
  };
}

/**
 * A parsed answer that is a list: none, the one record it lists, or (longer) unreadable, saying how long. Before,
 * each was "an unexpected shape". Anything else is left as it is.
 */
export function oneOfList(raw: unknown, status: number): { raw: unknown } | { error: ServiceError } {
  if (!Array.isArray(raw)) return { raw };
  if (raw.length === 0) return { error: noSuchOrder(status, `${status} with an empty list`) };
  if (raw.length === 1) return { raw: raw[0] };
  const message = `the answer lists ${raw.length} records for one order`;
  return { error: { kind: 'retryable', reason: 'unreadable-response', status, message } };
}
