import type { z } from 'zod';
import { courierListSchema, type CourierOption } from '../../../shared/couriers.js';
import { errorEnvelopeSchema, type FieldError, type ServiceError, type ServiceResult } from '../../../shared/errors.js';
import {
  cancelRequestSchema,
  createResponseSchema,
  createV2Schema,
  createWithClinicV1Schema,
  type CancelRequest,
  type CreateResponse,
  type CreateV2,
  type CreateWithClinicV1,
} from '../../../shared/orders.js';
import {
  priceCheckSchema,
  productListSchema,
  productRefSchema,
  stockCheckSchema,
  type PriceCheck,
  type Product,
  type ProductRef,
  type StockCheck,
} from '../../../shared/products.js';
import { statusRecordListSchema, statusRecordSchema, type StatusRecord } from '../../../shared/status.js';
import { parseWireJson, toWireJson } from '../../../shared/wire-json.js';
import { silentLogger, type Logger } from '../platform/logger.js';
import { failureToError, isPlainForbidden, statusToError, wantsFreshToken } from './error-mapping.js';
import { plainCreateResponse } from './create-response.js';
import { withContractKeys } from './answer-keys.js';
import { webPageAnswer } from './web-page-answer.js';
import { detachedError } from './own-strings.js';
import { jsonInString } from './json-in-string.js';
import { nothingSaid, noSuchOrder, oneOfList } from './one-order.js';
import { isXmlAnswer } from './xml-error.js';
import { hl7AckIn, isHl7Refusal } from './hl7-ack.js';
import { WarmConnections } from './warm-connections.js';
import { ACCEPT_ENCODING, exchange, type ExchangeResult } from './http-exchange.js';
import {
  checkStoredBody,
  fieldsOf,
  STORED_BODY_CHECK_VERSION,
  type StoredBodyRoute,
} from '../model/stored-body-check.js';

/**
 * The app's Order Service client: one method per endpoint, each returning a value or a ServiceError the caller
 * can act on (retry, reconcile, sign in, show the admin), never a throw. It does not retry on its own, except
 * once after refreshing the token on a 401 or a 403: deciding when to send again is the outbox's job.
 */

export interface TokenSource {
  /**
   * The current access token for requests to `audience` (an origin), or null when not signed in or when the
   * token was not given for that origin.
   */
  getAccessToken(audience: string): Promise<string | null>;
  /**
   * Gets a new access token (refresh token or client credentials); false when that is not possible (signed out,
   * refused: sign in again), `'unreachable'` when the identity server could not be reached and the sign-in
   * stands (try again later). `rejected` is the token the service refused: a source already holding a newer one
   * answers true at once.
   */
  refresh(rejected?: string): Promise<boolean | 'unreachable'>;
}

export interface OrderServiceClientOptions {
  apiBaseUrl: string;
  tokens: TokenSource | null;
  timeoutMs: number;
  /** e.g. 'RxBatch/0.1.0' */
  userAgent: string;
  createWithClinicVersion: 'v1' | 'v2';
  logger?: Logger;
  /**
   * Connections kept open ahead of the creates and cancels while they keep coming (warm-connections.ts): the
   * outbox's stream of sends then never waits for a connection to open. Each still carries one request. Default
   * none.
   */
  warmConnections?: number;
}

export interface CallMeta {
  operation: string;
  /** HTTP status of the last answer; absent when none came. */
  status?: number;
  latencyMs: number;
  /** HTTP requests made (2 after a refresh-and-retry on 401; 0 when the input was refused locally). */
  attempts: number;
}

export type CallOutcome<T> = ServiceResult<T> & { meta: CallMeta };

/** Per-call options of the calls that can be cancelled (the lookup reads; the outbox's calls, for its stop). */
export interface CallOptions {
  /**
   * Aborting it ends the call at once (the request in flight is destroyed, nothing more is sent) with a
   * `cancelled` error. Left out, the call cannot be cancelled and costs nothing extra.
   */
  signal?: AbortSignal;
}

/**
 * The caller gave up on the call: not a ServiceError (the service did nothing wrong, so it is neither retryable
 * nor a failure to record), and only possible when the caller passed a signal.
 */
export interface CallCancelled {
  kind: 'cancelled';
  /** Whether the request could have reached the service before it was destroyed. */
  sent: boolean;
  message: string;
}

export type CancellableOutcome<T> = CallOutcome<T> | { ok: false; error: CallCancelled; meta: CallMeta };

/**
 * A read that takes per-call options last. Its type says what it can end in: without options never cancelled
 * (so callers such as the outbox and the poller handle ServiceErrors only), with them possibly cancelled.
 */
export interface CancellableRead<A extends unknown[], T> {
  (...args: A): Promise<CallOutcome<T>>;
  (...args: [...A, CallOptions]): Promise<CancellableOutcome<T>>;
}

export interface OrderServiceClient {
  createWithClinic(body: CreateWithClinicV1): Promise<CallOutcome<CreateResponse>>;
  createV2(body: CreateV2): Promise<CallOutcome<CreateResponse>>;
  createWithHl7(message: string): Promise<CallOutcome<CreateResponse>>;
  /**
   * Sends a create body stored earlier exactly as stored (the outbox's path: no re-serialisation, so what was
   * accepted is what goes out), after checking it against the route's schema: `v1` → create-with-clinic, `v2` →
   * create, `hl7` → create-with-hl7message. A body that fails the check is refused unsent (rejected, status 0).
   * `checkedBy`: the version of `checkStoredBody` the store recorded these exact bytes as passing for this route
   * since they were last written (`orders.body_checked`); when it is the current version the parse is skipped.
   */
  sendCreate(
    route: 'v1' | 'v2' | 'hl7',
    rawBody: string,
    checkedBy?: number | null,
  ): Promise<CallOutcome<CreateResponse>>;
  /**
   * With a signal: the outbox's stop abandons what is in flight. A create cut short after it could have reached the
   * service ends `cancelled` with `sent: true`, and its order is in doubt.
   */
  sendCreate(
    route: 'v1' | 'v2' | 'hl7',
    rawBody: string,
    checkedBy: number | null | undefined,
    options: CallOptions,
  ): Promise<CancellableOutcome<CreateResponse>>;
  status: CancellableRead<[pharmacyOrderId: number], StatusRecord>;
  statusWithClinicCode: CancellableRead<
    [q: { clinicCode: string; orderId?: number; clinicOrderId?: string }],
    StatusRecord[]
  >;
  statusByClinicOrderNumber(clinicOrderId: string): Promise<CallOutcome<StatusRecord>>;
  statusByDateRange(q: { startDate: string; endDate: string }): Promise<CallOutcome<StatusRecord[]>>;
  /** With a signal as for sendCreate: a cancel cut short after it could have arrived may have taken effect. */
  cancel: CancellableRead<[req: CancelRequest], StatusRecord>;
  stockCheck: CancellableRead<[ref: ProductRef], StockCheck>;
  priceCheck: CancellableRead<[ref: ProductRef, totalPacks: number], PriceCheck>;
  /** Anonymous: no token is sent, none is needed. */
  searchProducts: CancellableRead<[searchTerm: string], Product[]>;
  courierPriceList: CancellableRead<[], CourierOption[]>;
}

type Query = Record<string, string | number | undefined>;

interface Operation<T> {
  name: string;
  method: 'GET' | 'PUT' | 'POST';
  /** Relative to the API base, no leading slash (so a base with a path prefix keeps it). */
  path: string;
  query?: Query;
  body?: { text: string; contentType: string };
  /** Sends the bearer token (every endpoint but product search). */
  secured: boolean;
  /** Creates and cancel: a lost answer leaves them in doubt. */
  unsafe: boolean;
  schema: z.ZodType<T>;
  /** What a success must not contradict (the order the request was about); worked out only when needed. */
  about?: () => AnswerAbout;
  /** A list read: what a `204 No Content` lists (nothing). Left out, a 204 is an answer that could not be read. */
  noContent?: () => T;
  /** A read of one order: an answer of nothing (204, an empty body, `null`) says the service has no such order. */
  oneOrder?: true;
}

/**
 * The order a create or cancel was about. An answer that names another (a proxy's or cache's answer for another
 * request, a service that answered with the wrong record) says nothing about this one.
 */
interface AnswerAbout {
  clinicOrderId?: string;
  clinicCode?: string;
  pharmacyOrderId?: string;
  /** A price check's: the product asked about and the packs priced (a price for 1 pack shown as for 3 misleads). */
  productId?: string;
  dmdCode?: string;
  totalPacks?: string;
}

const ANSWER_KEYS = ['clinicOrderId', 'clinicCode', 'pharmacyOrderId', 'productId', 'dmdCode', 'totalPacks'] as const;

/**
 * Where an answer breaks its schema, in words: the field's path as the service wrote it and what was wrong
 * ("[2].price: Invalid input: expected number, received string"). Field names and types only, never a value.
 */
function firstIssue(error: z.ZodError | undefined): string {
  const issue = error?.issues[0];
  if (!issue) return 'no detail';
  const path = issue.path
    .map((part) => (typeof part === 'number' ? `[${part}]` : `.${String(part)}`))
    .join('')
    .replace(/^\./, '');
  const count = error?.issues.length ?? 0;
  const more = count > 1 ? `, and ${count - 1} more` : '';
  return `${path || 'the whole answer'}: ${issue.message.slice(0, 120)}${more}`;
}

/** The identifiers of a create body (v1 and v2 share these paths); absent ones are not checked. */
function aboutCreateBody(body: unknown): AnswerAbout {
  const prescription = (body as { prescription?: { clinicOrderId?: unknown } } | null)?.prescription;
  const clinic = (body as { clinicInformation?: { clinicCode?: unknown } } | null)?.clinicInformation;
  return {
    ...(typeof prescription?.clinicOrderId === 'string' ? { clinicOrderId: prescription.clinicOrderId } : {}),
    ...(typeof clinic?.clinicCode === 'string' ? { clinicCode: clinic.clinicCode } : {}),
  };
}

/**
 * Which identifier of a 2xx answer contradicts the request, if any: a top-level `clinicOrderId`, `clinicCode`,
 * `pharmacyOrderId` (or a price check's `productId`, `dmdCode`, `totalPacks`) given (text or a number) and different
 * from what was sent. Absent or null says nothing (every
 * field of a status record is nullable).
 */
function contradiction(answer: unknown, about: AnswerAbout): string | undefined {
  if (answer === null || typeof answer !== 'object' || Array.isArray(answer)) return undefined;
  for (const key of ANSWER_KEYS) {
    const expected = about[key];
    const given = (answer as Record<string, unknown>)[key];
    if (expected === undefined || given === null || given === undefined) continue;
    const text = typeof given === 'string' || typeof given === 'number' ? String(given) : undefined;
    if (text?.trim() !== expected) {
      const shown = text === undefined ? typeof given : `"${text.slice(0, 64)}"`;
      return `the answer names ${key} ${shown}, not "${expected}" as sent`;
    }
  }
  return undefined;
}

const JSON_TYPE = 'application/json; charset=utf-8';
const RENEWAL_FAILED =
  'the sign-in could not be renewed: the identity server did not answer, or its answer could not be used; trying again later';
/** How long a plain 403 that a renewed token also drew is taken at its word (see forbiddenWhileFreshAt). */
const FORBIDDEN_TRUSTED_MS = 60_000;

type Response = Extract<ExchangeResult, { kind: 'response' }>;

/**
 * A failed answer with every token we sent replaced by "[token]" in its body and headers: a service (or a proxy)
 * that echoes the Authorization header in an error ("rejected header 'Bearer eyJ…'") would otherwise put it into
 * the error's message, which is stored with the order, audited and shown. Done before the body is read and cut
 * short, so a token cut in half by the 500-character limit is caught too.
 */
function withoutTokens(response: Response, tokens: readonly string[]): Response {
  const patterns = tokens.map(echoPattern);
  const scrub = (text: string) => patterns.reduce((out, pattern) => out.replace(pattern, '[token]'), text);
  const echoes = (text: string) => patterns.some((pattern) => text.search(pattern) >= 0);
  const headers = { ...response.headers };
  let changed = false;
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value === 'string' && echoes(value)) {
      headers[name] = scrub(value);
      changed = true;
    } else if (Array.isArray(value) && value.some(echoes)) {
      headers[name] = value.map(scrub);
      changed = true;
    }
  }
  if (!changed && !echoes(response.text)) return response;
  return { ...response, headers, text: scrub(response.text) };
}

/**
 * A token where it stands on its own: not glued to a letter or digit on either side. A short token (a service's
 * test account may issue "abc1") would otherwise turn "abc123" or "clinic abc1x" in an error into "[token]…"; an
 * echo still sits between quotes, spaces, "=" or "Bearer ", which this keeps finding.
 */
function echoPattern(token: string): RegExp {
  const literal = token.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
  return new RegExp(`(?<![A-Za-z0-9])${literal}(?![A-Za-z0-9])`, 'g');
}

export function createOrderServiceClient(o: OrderServiceClientOptions): OrderServiceClient {
  const logger = o.logger ?? silentLogger;
  const base = new URL(o.apiBaseUrl.endsWith('/') ? o.apiBaseUrl : `${o.apiBaseUrl}/`);
  const warm = o.warmConnections ? new WarmConnections(o.warmConnections) : undefined;
  // When a plain 403 last came back for a token just renewed: for a minute after, a plain 403 is taken as the
  // service's refusal without renewing again, so a batch of locked-out patients costs one renewal a minute, not one
  // an order.
  let forbiddenWhileFreshAt = -Infinity;

  // A URL without a query is the same for every call (creates, cancel, the courier list): built once per path
  // instead of once per request. exchange() only reads it.
  const plainUrls = new Map<string, URL>();
  function urlFor(path: string, query: Query | undefined): URL {
    if (!query) {
      let url = plainUrls.get(path);
      if (!url) plainUrls.set(path, (url = new URL(path, base)));
      return url;
    }
    const url = new URL(path, base);
    for (const [key, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(key, String(value));
    return url;
  }

  function finish<T, E extends ServiceError | CallCancelled>(
    { name, unsafe }: Pick<Operation<unknown>, 'name' | 'unsafe'>,
    started: number,
    attempts: number,
    status: number | undefined,
    result: { ok: true; value: T } | { ok: false; error: E },
  ): ({ ok: true; value: T } | { ok: false; error: E }) & { meta: CallMeta } {
    // An error outlives its call (kept with the order): its words, not the answer they were cut from (own-strings.ts).
    if (!result.ok && result.error.kind !== 'cancelled') {
      result = { ok: false, error: detachedError(result.error) as E };
    }
    const meta: CallMeta = {
      operation: name,
      latencyMs: Math.round(performance.now() - started),
      attempts,
      ...(status !== undefined ? { status } : {}),
    };
    // Operational fields only: never bodies, tokens or anything about the patient.
    const fields = {
      operation: name,
      status: status ?? null,
      latencyMs: meta.latencyMs,
      attempts,
      outcome: result.ok ? 'ok' : result.error.kind,
      ...(result.ok ? {} : { reason: 'reason' in result.error ? result.error.reason : null }),
    };
    // A create or cancel that succeeded is not logged one by one: the outbox records every such call, with its status
    // and latency, in the submission log, and a batch sends thousands a second. Reads and every failure are logged.
    if (result.ok) {
      if (!unsafe) logger.info('order service call', fields);
    }
    // The caller gave up: nothing failed, so it is not logged (or counted anywhere) as a failure.
    else if (result.error.kind === 'cancelled') logger.info('order service call cancelled', fields);
    else logger.warn('order service call failed', fields);
    return { ...result, meta };
  }

  /** Refused before sending: the input breaks the shared schema, so the service would refuse it too. */
  function refuseInput<T>(
    name: string,
    fields: FieldError[],
    message = 'the request is invalid; nothing was sent',
  ): CallOutcome<T> {
    const started = performance.now();
    // Failures are logged whatever the operation, so `unsafe` does not matter here.
    return finish<T, ServiceError>({ name, unsafe: false }, started, 0, undefined, {
      ok: false,
      error: { kind: 'rejected', status: 0, message, fields },
    });
  }

  async function tokenOrNull(url: URL): Promise<string | null> {
    try {
      return (await o.tokens?.getAccessToken(url.origin)) ?? null;
    } catch {
      logger.warn('token source failed to give a token');
      return null;
    }
  }

  async function refreshed(rejected: string | undefined): Promise<boolean | 'unreachable'> {
    try {
      return (await o.tokens?.refresh(rejected)) ?? false;
    } catch {
      logger.warn('token refresh failed');
      return false;
    }
  }

  /** Without a signal the call cannot end cancelled, so its outcome is a plain CallOutcome. */
  function run<T>(op: Operation<T>): Promise<CallOutcome<T>> {
    return send(op, undefined) as Promise<CallOutcome<T>>;
  }

  async function send<T>(op: Operation<T>, signal: AbortSignal | undefined): Promise<CancellableOutcome<T>> {
    const started = performance.now();
    const url = urlFor(op.path, op.query);
    let attempts = 0;
    // The tokens sent, so that an answer echoing one back never carries it into a message.
    let sentTokens: string[] | undefined;

    const attempt = async (): Promise<ExchangeResult | { kind: 'no-token' }> => {
      // Cancelled before (or between) requests: nothing more is sent, and no request is counted.
      if (signal?.aborted) return { kind: 'cancelled', sent: false };
      const token = op.secured ? await tokenOrNull(url) : null;
      // A secured call is never sent without a token: a sign-in whose token could not be had (never saved, refused,
      // or an answer the app could not use) sent each order's whole body, patient and all, unauthenticated.
      if (op.secured && o.tokens && !token) return { kind: 'no-token' };
      attempts += 1;
      if (token) (sentTokens ??= []).push(token);
      return exchange({
        method: op.method,
        url,
        timeoutMs: o.timeoutMs,
        headers: {
          'user-agent': o.userAgent,
          accept: 'application/json',
          'accept-encoding': ACCEPT_ENCODING,
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...(op.body ? { 'content-type': op.body.contentType } : {}),
        },
        ...(op.body ? { body: op.body.text } : {}),
        signal,
        // The outbox's sends come in streams; reads (the UI's lookups, the poller) connect as they go.
        ...(op.unsafe ? { warm } : {}),
      });
    };

    let result = await attempt();
    // A 401 (or a 403 invalid_token) means the service did not act, so sending again (even a create) is safe: once,
    // with a fresh token. So does a plain 403, which a gateway may give for a token it holds expired: sent again once
    // with a renewed token, it is the service's refusal only if the new token gets it too.
    const forbidden =
      result.kind === 'response' &&
      isPlainForbidden(result.status, result.headers) &&
      performance.now() - forbiddenWhileFreshAt > FORBIDDEN_TRUSTED_MS;
    if (
      result.kind === 'response' &&
      (forbidden || wantsFreshToken(result.status, result.headers)) &&
      op.secured &&
      o.tokens
    ) {
      const renewed = await refreshed(sentTokens?.at(-1));
      if (renewed === true) {
        result = await attempt();
        if (result.kind === 'response' && isPlainForbidden(result.status, result.headers)) {
          forbiddenWhileFreshAt = performance.now();
        }
      } else if (renewed === false && forbidden) {
        // The sign-in is gone (refused or signed out): nothing more can be sent, whatever the 403 meant.
        const error: ServiceError = {
          kind: 'auth',
          status: 403,
          message: 'sign-in required: the service refused the token (403) and the sign-in could not be renewed',
        };
        return finish(op, started, attempts, 403, { ok: false, error });
      } else if (renewed === 'unreachable') {
        // Still signed in; only the identity server is away. Not a sign-in matter (which stops sending until someone
        // signs in): retryable, like the service being unreachable, so sending resumes by itself when it is back.
        const error: ServiceError = {
          kind: 'retryable',
          reason: 'network',
          status: result.status,
          message: RENEWAL_FAILED,
        };
        return finish(op, started, attempts, result.status, { ok: false, error });
      }
    }
    if (result.kind === 'no-token') {
      // Why there is none decides what it is: signed out (a sign-in matter), or the identity server away (an outage).
      const renewed = await refreshed(undefined);
      if (renewed === true) result = await attempt();
      if (result.kind === 'no-token') {
        const error: ServiceError =
          renewed === 'unreachable'
            ? { kind: 'retryable', reason: 'network', message: RENEWAL_FAILED }
            : { kind: 'auth', status: 0, message: 'not signed in: nothing was sent' };
        return finish(op, started, attempts, undefined, { ok: false, error });
      }
    }
    if (result.kind === 'cancelled') {
      const error: CallCancelled = {
        kind: 'cancelled',
        sent: result.sent,
        message: result.sent ? 'cancelled while waiting for the answer' : 'cancelled before it was sent',
      };
      return finish(op, started, attempts, undefined, { ok: false, error });
    }
    if (result.kind === 'failure')
      return finish(op, started, attempts, undefined, { ok: false, error: failureToError(result, op.unsafe) });
    // A 1xx that ends the exchange (only an unasked-for 101 can) is an answer we cannot read, like a broken 2xx.
    if (result.status < 100 || result.status >= 300) {
      const answer = sentTokens ? withoutTokens(result, sentTokens) : result;
      return finish(op, started, attempts, result.status, { ok: false, error: statusToError(answer, op.unsafe) });
    }
    const value = readValue(op, result, sentTokens);
    return finish(op, started, attempts, result.status, value);
  }

  /**
   * Why a 2xx's text could not be read, where every case said "not JSON": an empty body (a 200 or 204 with nothing)
   * and a key given twice (which lossless-json refuses: JSON.parse would keep the last) are JSON problems of their own.
   */
  function notJsonReason(text: string, err: unknown, contentType: string | undefined): string {
    if (text.trim() === '') return 'the answer was empty';
    // Web API answers XML to a client it takes to want it (a service ignoring our Accept): say which, not just "not".
    if (isXmlAnswer(text, contentType)) {
      return "the answer is XML, not JSON (the service ignored the request's Accept: application/json)";
    }
    const duplicate = err instanceof Error ? /^Duplicate key '([^']{1,40})'/.exec(err.message) : null;
    if (duplicate) return `the answer gives "${duplicate[1]}" twice, so which one holds is not known`;
    return 'the answer is not JSON';
  }

  /**
   * A 2xx whose body says it did not do it (`{"success": false, "message": "Order cannot be cancelled at this
   * stage"}`, as some services answer a refusal): its message ('' when it gives none), else undefined. Every field of
   * a status record is optional, so such a body passed as a cancel done, and the order was watched for good as one
   * whose cancel was sent; to a create it was in doubt, looked up and sent again until the outbox gave up.
   */
  function refusalIn(raw: unknown): string | undefined {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
    const body = raw as Record<string, unknown>;
    if (body.success !== false && body.ok !== false && body.succeeded !== false) return undefined;
    const message = [body.message, body.error, body.detail].find((value) => typeof value === 'string');
    return typeof message === 'string' ? message.slice(0, 200) : '';
  }

  function hasOrderId(raw: unknown): boolean {
    return typeof raw === 'object' && raw !== null && 'orderId' in raw && raw.orderId != null;
  }

  /**
   * The status of the service's own error envelope written into a 2xx (`200 {"error": "Order not found", "status":
   * 404}`, from a gateway or framework that answers 200 to everything), when the answer gives no order id. Read as
   * that status, it takes the same rules as if it had been the status line. Before, a create so refused was in doubt,
   * looked up and sent again for good, its reason never shown, and a lookup so answered "not found" kept an order
   * that never arrived in doubt for good, never sent. 401 and 403 are left to the status line, which decides the
   * token's renewal. An answer naming an order (an id or a status) is not read so.
   */
  function errorStatusIn(raw: unknown): number | undefined {
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
    // A record that names an order (a status record with an `error` note of its own) is that record, not a refusal.
    const names = (key: string) => (raw as Record<string, unknown>)[key] != null;
    if (['orderId', 'pharmacyOrderId', 'clinicOrderId', 'orderStatus'].some(names)) return undefined;
    const envelope = errorEnvelopeSchema.safeParse(raw);
    if (!envelope.success) return undefined;
    const { status } = envelope.data;
    return status >= 400 && status < 600 && status !== 401 && status !== 403 && status !== 407 ? status : undefined;
  }

  /** A 2xx whose body is not what the contract says: for a create the order may exist, so that is in doubt. */
  function readValue<T>(
    op: Operation<T>,
    response: Extract<ExchangeResult, { kind: 'response' }>,
    sentTokens: readonly string[] | undefined,
  ): ServiceResult<T> {
    // A create's usual answer is read without the full parse (see create-response.ts); any other text takes it.
    if ((op.schema as unknown) === createResponseSchema) {
      const created = plainCreateResponse(response.text);
      if (created) return { ok: true, value: created as T };
    }
    // An HL7 acknowledgement: an application reject or error (AR, AE, CR, CE) says the message was not taken, with
    // its reason. Read as "not JSON", the order was in doubt, looked up and sent again for good, its reason never shown.
    const ack = op.name === 'createWithHl7' ? hl7AckIn(response.text) : undefined;
    if (ack && isHl7Refusal(ack)) {
      const said = sentTokens ? withoutTokens({ ...response, text: ack.text }, sentTokens).text : ack.text;
      return {
        ok: false,
        error: {
          kind: 'rejected',
          status: response.status,
          message: `the service refused the HL7 message (${ack.code})${said ? `: ${said}` : ''}`,
          fields: [],
        },
      };
    }
    if (ack) {
      // Taken (AA, CA), but an acknowledgement names no order id: looked up for it.
      const message = `the service acknowledged the HL7 message (${ack.code || 'no code'}) without an order id: the outcome is unknown`;
      return {
        ok: false,
        error: { kind: 'in-doubt', reason: 'unreadable-response', status: response.status, message },
      };
    }
    // A cancel answered 202 Accepted or 204 No Content, or 200 with no body: taken, to be confirmed by its status.
    // Read as unreadable, it was in doubt, checked and sent again every few seconds until the service had done it.
    if (op.name === 'cancel' && response.text.trim() === '' && !response.truncated) {
      return { ok: true, value: op.schema.parse({}) };
    }
    // A list read answered 204 or `null` (ASP.NET Core's answers when an action returns null, with and without its
    // no-content formatter): it lists nothing. Read as "the answer was empty" or a wrong shape, every lookup of an
    // order the service does not have failed, and the order stayed in doubt for good, never sent. An empty 200 is
    // not taken so (the framework writes none for a null).
    const listsNothing = response.status === 204 ? response.text.trim() === '' : response.text.trim() === 'null';
    if (op.noContent && listsNothing && !response.truncated && !response.unreadable) {
      return { ok: true, value: op.noContent() };
    }
    // A read of one order answered with nothing: the service's "none" (one-order.ts).
    const nothing = op.oneOrder ? nothingSaid(response) : undefined;
    if (nothing) return { ok: false, error: noSuchOrder(response.status, nothing) };
    let parsed: z.ZodSafeParseResult<T> | undefined;
    let raw: unknown;
    let notJson = 'the answer is not JSON';
    try {
      // Keys in another case (`OrderId`) read as the contract's: every check below sees the same answer.
      raw = withContractKeys(jsonInString(parseWireJson(response.text)));
      // A read of one order answered with a list (as status-with-clinic-code answers): none, or the one it lists.
      if (op.oneOrder) {
        const one = oneOfList(raw, response.status);
        if ('error' in one) return { ok: false, error: one.error };
        raw = one.raw;
      }
      parsed = op.schema.safeParse(raw);
    } catch (err) {
      parsed = undefined;
      notJson = notJsonReason(response.text, err, response.headers['content-type']);
    }
    const errorStatus = errorStatusIn(raw);
    if (errorStatus !== undefined) {
      const answer = { ...response, status: errorStatus };
      const error = statusToError(sentTokens ? withoutTokens(answer, sentTokens) : answer, op.unsafe);
      return { ok: false, error: { ...error, message: `${error.message} (written into a ${response.status} answer)` } };
    }
    const refusal = op.unsafe ? refusalIn(raw) : undefined;
    // `{"success": false, "orderId": 12}` to a create says two things, and the order may exist: in doubt, looked up.
    const saysBoth = refusal !== undefined && op.name !== 'cancel' && hasOrderId(raw);
    if (refusal !== undefined && !saysBoth) {
      const said = refusal ? `: ${refusal}` : '';
      return {
        ok: false,
        error: {
          kind: 'rejected',
          status: response.status,
          message: `the service refused the ${op.name === 'cancel' ? 'cancel' : 'order'}${said}`,
          fields: [],
        },
      };
    }
    const wrongOrder = parsed?.success && op.about ? contradiction(raw, op.about()) : undefined;
    if (parsed?.success && !wrongOrder && !saysBoth) return { ok: true, value: parsed.data };
    const why = saysBoth
      ? 'the answer gives an order id but says it failed'
      : wrongOrder
        ? wrongOrder
        : response.truncated
          ? 'the answer was too large'
          : response.unreadable
            ? response.unreadable
            : parsed
              ? `the answer has an unexpected shape (${firstIssue(parsed.error)})`
              : // A firewall's block page comes with a 200 (F5's does): its title says what stopped the request.
                (webPageAnswer(response.text, response.headers['content-type'], 'its answer') ?? notJson);
    const error: ServiceError = op.unsafe
      ? {
          kind: 'in-doubt',
          reason: 'unreadable-response',
          status: response.status,
          message: `${why}: the outcome is unknown`,
        }
      : { kind: 'retryable', reason: 'unreadable-response', status: response.status, message: why };
    return { ok: false, error };
  }

  function jsonBody<S extends z.ZodType>(
    schema: S,
    input: unknown,
  ): { ok: true; text: string } | { ok: false; fields: FieldError[] } {
    const parsed = schema.safeParse(input);
    return parsed.success ? { ok: true, text: toWireJson(parsed.data) } : { ok: false, fields: fieldsOf(parsed.error) };
  }

  function create(name: string, path: string, schema: z.ZodType, body: unknown): Promise<CallOutcome<CreateResponse>> {
    const checked = jsonBody(schema, body);
    if (!checked.ok) return Promise.resolve(refuseInput(name, checked.fields));
    return run({
      name,
      method: 'PUT',
      path,
      body: { text: checked.text, contentType: JSON_TYPE },
      secured: true,
      unsafe: true,
      schema: createResponseSchema,
      about: () => aboutCreateBody(body),
    });
  }

  /**
   * A stored wire body: checked (dm+d codes read losslessly) unless the store vouches that these bytes passed
   * this very check since their last write, then sent byte for byte.
   */
  function createStored(
    name: string,
    path: string,
    route: StoredBodyRoute,
    rawBody: string,
    checkedBy: number | null | undefined,
    signal: AbortSignal | undefined,
  ): Promise<CancellableOutcome<CreateResponse>> {
    if (checkedBy !== STORED_BODY_CHECK_VERSION) {
      const checked = checkStoredBody(route, rawBody);
      if (!checked.ok) return Promise.resolve(refuseInput(name, checked.fields));
    }
    return send(
      {
        name,
        method: 'PUT',
        path,
        body: { text: rawBody, contentType: JSON_TYPE },
        secured: true,
        unsafe: true,
        schema: createResponseSchema,
        // Read only for an answer other than the plain { orderId } (which names nothing to contradict).
        about: () => {
          try {
            return aboutCreateBody(parseWireJson(rawBody));
          } catch {
            return {};
          }
        },
      },
      signal,
    );
  }

  function hl7Create(message: string, signal: AbortSignal | undefined): Promise<CancellableOutcome<CreateResponse>> {
    if (!/^MSH./.test(message.trimStart())) {
      return Promise.resolve(
        refuseInput('createWithHl7', [{ field: '(message)', message: 'an HL7 message starts with an MSH segment' }]),
      );
    }
    return send(
      {
        name: 'createWithHl7',
        method: 'PUT',
        path: 'api/v2/Order/create-with-hl7message',
        body: { text: message, contentType: 'text/plain; charset=utf-8' },
        secured: true,
        unsafe: true,
        schema: createResponseSchema,
      },
      signal,
    );
  }

  const createWithHl7 = (message: string) => hl7Create(message, undefined) as Promise<CallOutcome<CreateResponse>>;

  // Without a signal (the poller, the UI's look-ups) a call costs what it always did: no listener.
  const getOrders = <T>(
    name: string,
    path: string,
    query: Query,
    schema: z.ZodType<T>,
    signal?: AbortSignal,
    about?: AnswerAbout,
    noContent?: () => T,
  ): Promise<CancellableOutcome<T>> =>
    send(
      {
        name,
        method: 'GET',
        path,
        query,
        secured: true,
        unsafe: false,
        schema,
        ...(about ? { about: () => about } : {}),
        ...(noContent ? { noContent } : { oneOrder: true }),
      },
      signal,
    );

  function sendCreate(
    route: 'v1' | 'v2' | 'hl7',
    rawBody: string,
    checkedBy?: number | null,
  ): Promise<CallOutcome<CreateResponse>>;
  function sendCreate(
    route: 'v1' | 'v2' | 'hl7',
    rawBody: string,
    checkedBy: number | null | undefined,
    options: CallOptions,
  ): Promise<CancellableOutcome<CreateResponse>>;
  function sendCreate(
    route: 'v1' | 'v2' | 'hl7',
    rawBody: string,
    checkedBy?: number | null,
    options?: CallOptions,
  ): Promise<CancellableOutcome<CreateResponse>> {
    const signal = options?.signal;
    if (route === 'hl7') return hl7Create(rawBody, signal);
    if (route === 'v2') return createStored('createV2', 'api/v2/Order/create', 'v2', rawBody, checkedBy, signal);
    return createStored(
      'createWithClinic',
      `api/${o.createWithClinicVersion}/Order/create-with-clinic`,
      'v1',
      rawBody,
      checkedBy,
      signal,
    );
  }

  function status(pharmacyOrderId: number): Promise<CallOutcome<StatusRecord>>;
  function status(pharmacyOrderId: number, options: CallOptions): Promise<CancellableOutcome<StatusRecord>>;
  function status(pharmacyOrderId: number, options?: CallOptions): Promise<CancellableOutcome<StatusRecord>> {
    return getOrders(
      'status',
      'api/v2/Order/status',
      { orderId: pharmacyOrderId },
      statusRecordSchema,
      options?.signal,
      // An answer about another order must not pass as this one's (the admin's look-up by pharmacy order id).
      { pharmacyOrderId: String(pharmacyOrderId) },
    );
  }

  type ClinicCodeQuery = { clinicCode: string; orderId?: number; clinicOrderId?: string };
  function statusWithClinicCode(q: ClinicCodeQuery): Promise<CallOutcome<StatusRecord[]>>;
  function statusWithClinicCode(q: ClinicCodeQuery, options: CallOptions): Promise<CancellableOutcome<StatusRecord[]>>;
  function statusWithClinicCode(
    q: ClinicCodeQuery,
    options?: CallOptions,
  ): Promise<CancellableOutcome<StatusRecord[]>> {
    return getOrders(
      'statusWithClinicCode',
      'api/v2/Order/status-with-clinic-code',
      { clinicCode: q.clinicCode, orderId: q.orderId, clinicOrderId: q.clinicOrderId },
      statusRecordListSchema,
      options?.signal,
      undefined,
      () => [],
    );
  }

  function cancel(req: CancelRequest): Promise<CallOutcome<StatusRecord>>;
  function cancel(req: CancelRequest, options: CallOptions): Promise<CancellableOutcome<StatusRecord>>;
  function cancel(req: CancelRequest, options?: CallOptions): Promise<CancellableOutcome<StatusRecord>> {
    const checked = jsonBody(cancelRequestSchema, req);
    if (!checked.ok) return Promise.resolve(refuseInput('cancel', checked.fields));
    return send(
      {
        name: 'cancel',
        method: 'POST',
        path: 'api/v2/Order/cancel',
        body: { text: checked.text, contentType: JSON_TYPE },
        secured: true,
        unsafe: true,
        schema: statusRecordSchema,
        about: () => ({ pharmacyOrderId: String(req.orderId), clinicCode: req.clinicCode }),
      },
      options?.signal,
    );
  }

  function productQuery(
    name: string,
    ref: ProductRef,
  ): { ok: true; query: Query } | { ok: false; outcome: CallOutcome<never> } {
    const parsed = productRefSchema.safeParse(ref);
    if (!parsed.success) return { ok: false, outcome: refuseInput(name, fieldsOf(parsed.error)) };
    return { ok: true, query: { productId: parsed.data.productId, dmdCode: parsed.data.dmdCode } };
  }

  /** A lookup read (safe to repeat), cancellable when the caller passes a signal. */
  function lookup<T>(
    name: string,
    path: string,
    schema: z.ZodType<T>,
    query: Query | undefined,
    options: CallOptions | undefined,
    secured = true,
    about?: AnswerAbout,
  ): Promise<CancellableOutcome<T>> {
    return send(
      {
        name,
        method: 'GET',
        path,
        ...(query ? { query } : {}),
        secured,
        unsafe: false,
        schema,
        ...(about ? { about: () => about } : {}),
      },
      options?.signal,
    );
  }

  // The cancellable reads. Overloads, so that a call without options is typed as never ending `cancelled`.
  function stockCheck(ref: ProductRef): Promise<CallOutcome<StockCheck>>;
  function stockCheck(ref: ProductRef, options: CallOptions): Promise<CancellableOutcome<StockCheck>>;
  function stockCheck(ref: ProductRef, options?: CallOptions): Promise<CancellableOutcome<StockCheck>> {
    const q = productQuery('stockCheck', ref);
    if (!q.ok) return Promise.resolve(q.outcome);
    return lookup('stockCheck', 'api/v2/Product/stock-check', stockCheckSchema, q.query, options);
  }

  function priceCheck(ref: ProductRef, totalPacks: number): Promise<CallOutcome<PriceCheck>>;
  function priceCheck(
    ref: ProductRef,
    totalPacks: number,
    options: CallOptions,
  ): Promise<CancellableOutcome<PriceCheck>>;
  function priceCheck(
    ref: ProductRef,
    totalPacks: number,
    options?: CallOptions,
  ): Promise<CancellableOutcome<PriceCheck>> {
    const q = productQuery('priceCheck', ref);
    if (!q.ok) return Promise.resolve(q.outcome);
    const about: AnswerAbout = {
      totalPacks: String(totalPacks),
      ...(ref.productId !== undefined ? { productId: String(ref.productId) } : {}),
      ...(ref.dmdCode !== undefined ? { dmdCode: String(ref.dmdCode) } : {}),
    };
    const query = { ...q.query, totalPacks };
    return lookup('priceCheck', 'api/v2/Product/price-check', priceCheckSchema, query, options, true, about);
  }

  function searchProducts(searchTerm: string): Promise<CallOutcome<Product[]>>;
  function searchProducts(searchTerm: string, options: CallOptions): Promise<CancellableOutcome<Product[]>>;
  function searchProducts(searchTerm: string, options?: CallOptions): Promise<CancellableOutcome<Product[]>> {
    // Anonymous: product search needs no token.
    return lookup('searchProducts', 'api/v2/Product/search', productListSchema, { searchTerm }, options, false);
  }

  function courierPriceList(): Promise<CallOutcome<CourierOption[]>>;
  function courierPriceList(options: CallOptions): Promise<CancellableOutcome<CourierOption[]>>;
  function courierPriceList(options?: CallOptions): Promise<CancellableOutcome<CourierOption[]>> {
    return lookup('courierPriceList', 'api/v2/CourierService/price-check', courierListSchema, undefined, options);
  }

  return {
    createWithClinic: (body) =>
      create(
        'createWithClinic',
        `api/${o.createWithClinicVersion}/Order/create-with-clinic`,
        createWithClinicV1Schema,
        body,
      ),
    createV2: (body) => create('createV2', 'api/v2/Order/create', createV2Schema, body),
    createWithHl7,
    sendCreate,
    status,
    statusWithClinicCode,
    statusByClinicOrderNumber: (clinicOrderId) =>
      run({
        name: 'statusByClinicOrderNumber',
        method: 'GET',
        path: 'api/v2/Order/status-clinic-ordernumber',
        query: { orderId: clinicOrderId },
        secured: true,
        unsafe: false,
        schema: statusRecordSchema,
        about: () => ({ clinicOrderId }),
        oneOrder: true,
      }),
    statusByDateRange: (q) =>
      run({
        name: 'statusByDateRange',
        method: 'GET',
        path: 'api/v2/Order/status-date-range',
        query: { startDate: q.startDate, endDate: q.endDate },
        secured: true,
        unsafe: false,
        schema: statusRecordListSchema,
        noContent: () => [],
      }),
    cancel,
    stockCheck,
    priceCheck,
    searchProducts,
    courierPriceList,
  };
}
