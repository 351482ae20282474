import { describeErrorBody, type FieldError, type ServiceError } from '../../../shared/errors.js';
import { parseWireJson } from '../../../shared/wire-json.js';
import type { ExchangeResult } from './http-exchange.js';

/**
 * Turns what happened on the wire into a ServiceError the caller can act on. `unsafe` marks creates and cancel:
 * sending them twice could act twice, so a lost answer makes them in doubt, where a GET is simply retryable.
 */

type Failure = Extract<ExchangeResult, { kind: 'failure' }>;
type Response = Extract<ExchangeResult, { kind: 'response' }>;

export function failureToError(failure: Failure, unsafe: boolean): ServiceError {
  const code = failure.code ? ` (${failure.code})` : '';
  if (!failure.sent) {
    return {
      kind: 'retryable',
      reason: 'network',
      message: failure.timedOut
        ? `could not connect to the service in time${code}`
        : `could not reach the service: ${failure.message}${code}`,
    };
  }
  if (!unsafe) {
    return { kind: 'retryable', reason: 'network', message: `the connection failed: ${failure.message}${code}` };
  }
  return failure.timedOut
    ? { kind: 'in-doubt', reason: 'timeout', message: `sent, but ${failure.message}: the outcome is unknown` }
    : {
        kind: 'in-doubt',
        reason: 'reset',
        message: `sent, but the connection was lost before an answer${code}: the outcome is unknown`,
      };
}

/** `Retry-After` as delay-seconds or an HTTP date, in ms from `now`; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The body as JSON when it is JSON, else the text (describeErrorBody copes with both). */
function bodyOf(text: string): unknown {
  try {
    return parseWireJson(text);
  } catch {
    return text;
  }
}

export function describeResponse(response: Response): {
  message: string;
  fields: FieldError[];
  envelope?: ReturnType<typeof describeErrorBody>['envelope'];
} {
  return describeErrorBody(bodyOf(response.text), response.text);
}

/**
 * A non-2xx answer. `unsafe` (creates, cancel): a 5xx, or a 408, does not say the request was not acted on — a
 * gateway or load balancer answers 502/503/504 when its backend did the work but the answer was lost, a service can
 * fail (500) after its write, and a proxy's 408 can come after it forwarded the request — so for these it is
 * `in-doubt` (reason `server`), as Stripe treats a 500: indeterminate, reconcile before sending again. Every other
 * answer says the service did not act: 401 (not signed in), 429 (asked to slow down before doing anything), and
 * 3xx/4xx refusals. For reads a 5xx is simply retryable.
 */
export function statusToError(response: Response, unsafe = false): ServiceError {
  const { status } = response;
  const described = describeResponse(response);
  const retryAfterMs = parseRetryAfter(response.headers['retry-after']);
  const retryAfter = retryAfterMs !== undefined ? { retryAfterMs } : {};
  if (status === 401) return { kind: 'auth', status, message: `sign-in required: ${described.message}` };
  if (status === 429) {
    return {
      kind: 'retryable',
      reason: 'rate-limited',
      status,
      ...retryAfter,
      message: `the service asks us to slow down: ${described.message}`,
    };
  }
  // 408: the service gave up waiting for our request (for a read that is all it means; see above for the rest).
  if (status >= 500 || status === 408) {
    if (unsafe) {
      return {
        kind: 'in-doubt',
        reason: 'server',
        status,
        ...retryAfter,
        message: `the service failed (${status}): ${described.message}`,
      };
    }
    return {
      kind: 'retryable',
      reason: 'server',
      status,
      ...retryAfter,
      message: `the service failed (${status}): ${described.message}`,
    };
  }
  if (status >= 300 && status < 400) {
    const location = typeof response.headers.location === 'string' ? ` to ${response.headers.location}` : '';
    return {
      kind: 'rejected',
      status,
      fields: [],
      message: `the service redirected${location}: check the API base URL`,
    };
  }
  return {
    kind: 'rejected',
    status,
    message: described.message,
    fields: described.fields,
    ...(described.envelope ? { envelope: described.envelope } : {}),
  };
}
