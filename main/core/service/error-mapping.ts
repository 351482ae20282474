import { describeErrorBody, type FieldError, type ServiceError } from '../../../shared/errors.js';
import { parseWireJson } from '../../../shared/wire-json.js';
import type { IncomingHttpHeaders } from 'node:http';
import type { ExchangeResult } from './http-exchange.js';
import { describeTlsProblem, type TlsPeer } from '../platform/tls-problems.js';
import { webPageAnswer } from './web-page-answer.js';
import { hl7AckIn, hl7AckWords } from './hl7-ack.js';
import { jsonInString } from './json-in-string.js';
import { xmlErrorWords } from './xml-error.js';

/**
 * Turns what happened on the wire into a ServiceError the caller can act on. `unsafe` marks creates and cancel:
 * sending them twice could act twice, so a lost answer makes them in doubt, where a GET is simply retryable.
 */

type Failure = Extract<ExchangeResult, { kind: 'failure' }>;
type Response = Extract<ExchangeResult, { kind: 'response' }>;

const SERVICE: TlsPeer = { server: 'the service', address: 'the API base URL' };

export function failureToError(failure: Failure, unsafe: boolean): ServiceError {
  const code = failure.code ? ` (${failure.code})` : '';
  const tls = failure.sent ? undefined : describeTlsProblem(failure.code, failure.message, SERVICE);
  if (tls) {
    // Refused before anything was sent, like an outage: sending resumes by itself once the certificate is put right.
    return { kind: 'retryable', reason: 'network', message: `${tls}; nothing was sent${code}`, settings: true };
  }
  if (!failure.sent) {
    return {
      kind: 'retryable',
      reason: 'network',
      message: failure.timedOut
        ? `could not connect to the service in time${code}`
        : `could not reach the service: ${failure.message}${code}`,
    };
  }
  // Node's HTTP parser refused what came back (a Content-Length that does not fit the body, two of them, bytes that
  // are not HTTP): an answer came, broken, rather than none.
  const broken = failure.code?.startsWith('HPE_') === true;
  if (!unsafe) {
    return {
      kind: 'retryable',
      reason: 'network',
      message: broken ? `the answer was not valid HTTP${code}` : `the connection failed: ${failure.message}${code}`,
    };
  }
  if (broken) {
    return {
      kind: 'in-doubt',
      reason: 'reset',
      message: `sent, but the answer was not valid HTTP${code}: the outcome is unknown`,
    };
  }
  return failure.timedOut
    ? { kind: 'in-doubt', reason: 'timeout', message: `sent, but ${failure.message}: the outcome is unknown` }
    : {
        kind: 'in-doubt',
        reason: 'reset',
        message: `sent, but the connection was lost before an answer${code}: the outcome is unknown`,
      };
}

/**
 * The longest wait a `Retry-After` can impose: a longer one is taken as this. A service asking for more is rare
 * (and asks again when we come back); a garbled value (a timestamp in ms, a year 2099 date) would otherwise stop
 * an environment for good, and past ~24.8 days a timer fires at once, which turned such a value into a busy loop.
 */
export const MAX_RETRY_AFTER_MS = 60 * 60 * 1000;

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** RFC 9110's three HTTP-date forms: IMF-fixdate, RFC 850 (two-digit year), asctime. Nothing else is a date. */
const IMF_FIXDATE = /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\d{2}) ([A-Z][a-z]{2}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const RFC_850 =
  /^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), (\d{2})-([A-Z][a-z]{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const ASCTIME = /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) ([A-Z][a-z]{2}) ( \d|\d{2}) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/;

function httpDate(text: string, now: number): number | undefined {
  let parts: { day: string; month: string; year: number; time: [string, string, string] } | undefined;
  let match: RegExpExecArray | null;
  if ((match = IMF_FIXDATE.exec(text))) {
    const [, day = '', month = '', year = '', h = '', m = '', s = ''] = match;
    parts = { day, month, year: Number(year), time: [h, m, s] };
  } else if ((match = RFC_850.exec(text))) {
    const [, day = '', month = '', yy = '', h = '', m = '', s = ''] = match;
    // RFC 9110: a two-digit year that looks more than 50 years ahead is in the past century.
    let year = 2000 + Number(yy);
    if (year > new Date(now).getUTCFullYear() + 50) year -= 100;
    parts = { day, month, year, time: [h, m, s] };
  } else if ((match = ASCTIME.exec(text))) {
    const [, month = '', day = '', h = '', m = '', s = '', year = ''] = match;
    parts = { day: day.trim(), month, year: Number(year), time: [h, m, s] };
  }
  if (!parts) return undefined;
  const month = MONTHS.indexOf(parts.month);
  const [h, m, s] = parts.time.map(Number) as [number, number, number];
  const at = Date.UTC(parts.year, month, Number(parts.day), h, m, s);
  // Date.UTC rolls 31 Feb into March and 25:00 into the next day: such a value is not a date.
  const back = new Date(at);
  const exact = back.getUTCMonth() === month && back.getUTCDate() === Number(parts.day) && back.getUTCHours() === h;
  return month >= 0 && exact && m < 60 && s < 61 ? at : undefined;
}

/**
 * `Retry-After` in ms from `now`: delay-seconds (digits only) or an HTTP date, at most MAX_RETRY_AFTER_MS. Absent,
 * or anything else (negative, fractional, "soon", an ISO date), is undefined: the caller's own backoff applies,
 * rather than whatever a lenient date parser makes of it (Date.parse reads "-5" and "1.5" as dates in 2001).
 */
export function parseRetryAfter(
  value: string | string[] | undefined,
  now = Date.now(),
  /** The answer's own `Date` header: a date to come back is read against the service's clock when it gives one. */
  served?: string,
): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Math.min(MAX_RETRY_AFTER_MS, Number(text) * 1000);
  const date = httpDate(text, now);
  if (date === undefined) return undefined;
  // A clock apart from ours (by minutes, or a timezone wrongly applied) made "in 30 s" an hour's wait, or none.
  const servedAt = served ? httpDate(served.trim(), now) : undefined;
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(0, date - (servedAt ?? now)));
}

/** The body as JSON when it is JSON, else the text (describeErrorBody copes with both). */
function bodyOf(text: string): unknown {
  try {
    return jsonInString(parseWireJson(text));
  } catch {
    return text;
  }
}

export function describeResponse(response: Response): {
  message: string;
  fields: FieldError[];
  envelope?: ReturnType<typeof describeErrorBody>['envelope'];
} {
  if (response.unreadable) return { message: response.unreadable, fields: [] };
  if (response.truncated) return { message: 'the answer was too large to read', fields: [] };
  const page = webPageAnswer(response.text, response.headers['content-type']);
  if (page !== undefined) return { message: page, fields: [] };
  const xml = xmlErrorWords(response.text, response.headers['content-type']);
  if (xml !== undefined) return { message: xml, fields: [] };
  // An HL7 endpoint's refusal: its reason, where the raw acknowledgement was the message.
  const ack = hl7AckIn(response.text);
  if (ack) return { message: hl7AckWords(ack), fields: [] };
  return describeErrorBody(bodyOf(response.text), response.text);
}

/**
 * The Bearer challenge of a `WWW-Authenticate` header (RFC 6750 §3): its `error`, `error_description` and `scope`,
 * each cut to 200 characters. Empty when there is none.
 */
export function bearerChallenge(header: string | string[] | undefined): {
  error?: string;
  description?: string;
  scope?: string;
} {
  const text = Array.isArray(header) ? header.join(', ') : (header ?? '');
  const param = (name: string) => {
    const match = new RegExp(`\\b${name}\\s*=\\s*(?:"((?:[^"\\\\]|\\\\.)*)"|([^\\s,]+))`, 'i').exec(text);
    const value = match?.[1]?.replace(/\\(.)/g, '$1') ?? match?.[2];
    return value ? (value.length > 200 ? `${value.slice(0, 200)}…` : value) : undefined;
  };
  const error = param('error');
  const description = param('error_description');
  const scope = param('scope');
  return {
    ...(error ? { error } : {}),
    ...(description ? { description } : {}),
    ...(scope ? { scope } : {}),
  };
}

/**
 * Whether a fresh token could change the answer: a 401, or a 403 that says the token is invalid (RFC 6750 wants a 401
 * there; some services send 403). Not a token that lacks a scope: a refresh asks for the same scopes.
 */
export function wantsFreshToken(status: number, headers: IncomingHttpHeaders): boolean {
  if (status !== 401 && status !== 403) return false;
  const { error } = bearerChallenge(headers['www-authenticate']);
  return status === 401 ? error !== 'insufficient_scope' : error === 'invalid_token';
}

/**
 * A 403 with no Bearer challenge: the contract's refusal ("the patient is locked out"), but also what some gateways
 * answer for a token they hold expired or revoked. Only a fresh token tells the two apart (client.ts).
 */
export function isPlainForbidden(status: number, headers: IncomingHttpHeaders): boolean {
  return status === 403 && bearerChallenge(headers['www-authenticate']).error === undefined;
}

/**
 * Whether the service itself wrote this error answer: its envelope (`{ error, status, details }`), or a field it
 * names. A web page, a bare "Not Found" or "Forbidden", or an empty body may come from anything in front of it (a
 * proxy, a firewall, a gateway).
 */
export function writtenByTheService(answer: { envelope?: unknown; fields: readonly FieldError[] }): boolean {
  return answer.envelope !== undefined || answer.fields.length > 0;
}

/**
 * A non-2xx answer. `unsafe` (creates, cancel): a 5xx, or a 408, does not say the request was not acted on — a
 * gateway or load balancer answers 502/503/504 when its backend did the work but the answer was lost, a service can
 * fail (500) after its write, and a proxy's 408 can come after it forwarded the request — so for these it is
 * `in-doubt` (reason `server`), as Stripe treats a 500: indeterminate, reconcile before sending again; so is a 3xx
 * other than 307/308 (below). Every other answer says the service did not act: 401 (not signed in), 429 (asked to
 * slow down before doing anything), 307/308 and 4xx refusals. For reads a 5xx is simply retryable.
 */
export function statusToError(response: Response, unsafe = false): ServiceError {
  const { status } = response;
  const described = describeResponse(response);
  const retryAfterMs = parseRetryAfter(response.headers['retry-after'], Date.now(), response.headers.date);
  const retryAfter = retryAfterMs !== undefined ? { retryAfterMs } : {};
  const challenge =
    status === 401 || status === 403 ? bearerChallenge(response.headers['www-authenticate']) : undefined;
  if (challenge?.error === 'insufficient_scope') {
    // The sign-in works but lacks a scope (RFC 6750): a matter for the environment's settings and a new sign-in,
    // not a refusal of this order (a plain 403 holds the order as "patient locked out").
    const scope = challenge.scope ? ` (${challenge.scope})` : '';
    return {
      kind: 'auth',
      status,
      message: `the token lacks the scope this call needs${scope}: check the environment's scopes and sign in again`,
    };
  }
  if (status === 401 || challenge?.error === 'invalid_token') {
    // An empty body says nothing; the challenge may (error_description).
    const said = response.text.trim() || !challenge?.error;
    const why = said
      ? described.message
      : `${challenge.error}${challenge.description ? `: ${challenge.description}` : ''}`;
    return { kind: 'auth', status, message: `sign-in required: ${why}` };
  }
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
    // Never followed (the token would go wherever it points). Only 307/308 say the request was not acted on
    // ("repeat it there"); a 303 is how post/redirect/get answers a write that happened, and 301/302 are turned
    // into it by many servers, so to a create or cancel any other 3xx leaves the outcome open.
    const raw = response.headers.location;
    const location = typeof raw === 'string' && raw ? ` to ${raw.length > 200 ? `${raw.slice(0, 200)}…` : raw}` : '';
    if (unsafe && status !== 307 && status !== 308) {
      return {
        kind: 'in-doubt',
        reason: 'unreadable-response',
        status,
        message: `the service redirected (${status})${location} instead of answering: the outcome is unknown; check the API base URL`,
      };
    }
    if (unsafe) {
      // A 307/308 to a create or cancel: not acted on, and about the address, not the order. Rejecting each order
      // for it rejected a whole batch one by one; it waits instead, as for a call with no such endpoint.
      return {
        kind: 'retryable',
        reason: 'server',
        status,
        message: `the service redirected (${status})${location} instead of answering: check the API base URL in the environment's settings; nothing was done, and it is tried again later`,
        settings: true,
      };
    }
    return {
      kind: 'rejected',
      status,
      fields: [],
      message: `the service redirected${location}: check the API base URL`,
    };
  }
  if (unsafe && headersTooLarge(response, described)) {
    // Refused before any handler read the request, and for what every request carries (the token, mostly): not this
    // order's fault, and nothing was done. Rejected, each order of a batch was turned down one by one; it waits as in
    // an outage instead (the breaker stops the rest) until the sign-in or the proxy is put right.
    return {
      kind: 'retryable',
      reason: 'server',
      status,
      message: `the service, or a proxy in front of it, refused the request's headers as too large (${status}: ${described.message}): a sign-in token too large for it is the usual cause; nothing was done, and it is tried again later`,
      settings: true,
    };
  }
  if (unsafe && noSuchEndpoint(response, described)) {
    // The call never reached a handler, so nothing was done, and nothing about this order was refused: sending waits
    // (as in an outage, so the breaker stops the rest) until the address or the API version is put right.
    return {
      kind: 'retryable',
      reason: 'server',
      status,
      message: `the service has no such call at this address (${status}: ${described.message}): check the API base URL and the API version in the environment's settings; nothing was done, and it is tried again later`,
      settings: true,
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

/** What web servers and proxies say when the request's headers are over their limit (nginx's 400, IIS, Kestrel). */
const HEADERS_TOO_LARGE = /\b(?:request )?header(?:s| fields?)?(?: or cookie)? (?:is |are )?too (?:large|long)\b/i;

/**
 * A 431, or a 400 whose words (not the service's envelope) say the headers are too large: nginx answers
 * "400 Request Header Or Cookie Too Large" for a header over its buffer, which a long bearer token crosses.
 */
function headersTooLarge(
  response: Response,
  described: { message: string; fields: FieldError[]; envelope?: unknown },
): boolean {
  if (response.status === 431) return true;
  return response.status === 400 && !writtenByTheService(described) && HEADERS_TOO_LARGE.test(described.message);
}

/** What web servers and frameworks say for a path or method they do not serve (and nothing about the request). */
const ROUTE_NOT_THERE =
  /^(?:\d{3}\b[\s:-]*)?(?:(?:resource |page |endpoint |route )?not found|gone|method not allowed|the service gave no explanation|cannot (?:get|put|post) \S+|no http resource was found\b.*|the requested url\b.* was not found\b.*|no route matche[sd]\b.*)\.?$/i;

/**
 * A 405, or a 404/410 that says nothing but "not found" (empty, an HTML page, a framework's default text or problem
 * details with no detail): the service does not offer this path or method, as when it moved to another API version.
 * A 404 in the service's envelope (or naming a field) is its own answer about the order, and stays a refusal.
 */
function noSuchEndpoint(
  response: Response,
  described: { message: string; fields: FieldError[]; envelope?: unknown },
): boolean {
  if (response.status === 405) return true;
  if (response.status !== 404 && response.status !== 410) return false;
  if (writtenByTheService(described)) return false;
  return /^\s*</.test(response.text) || ROUTE_NOT_THERE.test(described.message.trim());
}
