import type { ServiceError } from '../../../shared/errors.js';
import type { Logger } from '../platform/logger.js';
import { writtenByTheService } from '../service/error-mapping.js';
import type {
  CallCancelled,
  CallMeta,
  CallOutcome,
  CancellableOutcome,
  OrderServiceClient,
} from '../service/client.js';
import type { AttemptRecord, AttemptTransition, NewAttempt } from '../store/attempts-repo.js';
import type { AttemptOperation } from '../store/order-state.js';
import type { Store } from '../store/store.js';
import { orderAttention, type OrderAttention } from './attention.js';
import { retryDelayMs } from './backoff.js';
import type { OutboxTuning } from './tuning.js';

/** What one unit of outbox work (a create, a lookup, a cancel) needs, and what it tells the environment's loop. */

export interface StepContext {
  environmentId: string;
  store: Store;
  client: OrderServiceClient;
  tuning: OutboxTuning;
  now: () => Date;
  random: () => number;
  logger: Logger;
  /**
   * Whether the service answered requests about other orders since `sinceMs`, with the breaker closed: the
   * evidence that a failure says something about this order, not about the service ("failing while others
   * succeed"). Only then does it count towards giving up on the order.
   */
  othersAnsweredSince: (orderId: number, sinceMs: number) => boolean;
  /**
   * Whether the order's latest plain 403 was taken as the environment refusing every request, not this order
   * (access-refusal.ts): the order then waits, neither held nor counted.
   */
  forbiddenByEnvironment: (orderId: number) => boolean;
  /**
   * Aborted by the outbox's stop: requests still in flight then are abandoned (a create or cancel that may have
   * arrived is recorded as in doubt) so that nothing waits on the service, or writes, after the store closes.
   */
  signal: AbortSignal;
  /**
   * When this outbox last found orders a stopped process left `sending` (null: none): their last send has no
   * record, and may have reached the service up to then.
   */
  recoveredAtMs: number | null;
}

/** What the call said about the service, for the breaker, the Retry-After gate and the sign-in pause. */
export type ServiceVerdict =
  /** It answered (success, a 4xx but a plain 403, or a 2xx we could not read). */
  | 'up'
  /** No service: connection failure, timeout, reset, 5xx. */
  | 'down'
  /** 429: it is up, we are too fast. */
  | 'rate-limited'
  /** 401 that a refresh could not cure. */
  | 'auth'
  /** A 403 with no Bearer challenge: this order refused, or every request (judged by ServiceHealth). */
  | 'forbidden'
  /** Nothing was sent (the body was refused locally). */
  | 'none';

/** What an answer says about the service: judged the moment it arrives (breaker, Retry-After gate, sign-in). */
export interface Verdict {
  service: ServiceVerdict;
  /** The service's Retry-After, when it sent one. */
  retryAfterMs?: number;
  /** For the pause and outage messages: the error as the client described it. */
  message?: string;
  /** The error is one the environment's settings or the service's certificate must change to end (errors.ts). */
  settings?: true;
  /** Refused before anything was sent (connection refused, DNS, a certificate): never the order's own fault. */
  unsent?: true;
  /** A 403 in the service's own envelope (or naming a field), not something in front of it. */
  serviceWritten?: true;
  /** A read of the same order, made to judge that 403, got through (access-refusal.ts readSameOrder). */
  readGotThrough?: true;
}

/** What recording an answer produced, for the loop. */
export interface Recorded {
  /** The order reached the service (created or found), for the orders-per-second figure. */
  reached?: boolean;
  attention?: OrderAttention;
}

/**
 * What a step does after its network part: the bookkeeping (attempt, state change, audit) as one synchronous
 * function, so the loop can commit the answers of several steps, and the claims of the next, in one transaction.
 * The loop always runs it in a savepoint of its own (so one answer's failure cannot undo the others), which it may
 * rely on instead of opening another.
 */
export type Settle = () => Recorded;

/** A step's network part is over: what the service said, and the bookkeeping still to commit. */
export interface Answer {
  verdict: Verdict;
  settle: Settle;
}

export const UP: Verdict = { service: 'up' };
/** Nothing to say about the service (the call was refused locally, or abandoned by a stop). */
export const NONE: Verdict = { service: 'none' };

/** The outbox's stop cut the call short. */
export type Abandoned = { ok: false; error: CallCancelled; meta: CallMeta };

export function abandoned<T>(outcome: CancellableOutcome<T>): outcome is Abandoned {
  return !outcome.ok && outcome.error.kind === 'cancelled';
}

/** What a call cut short by a stop is recorded as, when it may have reached the service. */
export const ABANDONED_MESSAGE = 'sending stopped while waiting for the answer: the outcome is unknown';

export function verdictOf(error: ServiceError): ServiceVerdict {
  switch (error.kind) {
    case 'auth':
      return 'auth';
    case 'rejected':
      if (error.status === 0) return 'none';
      return error.status === 403 ? 'forbidden' : 'up';
    case 'in-doubt':
    case 'retryable':
      if (error.reason === 'rate-limited') return 'rate-limited';
      // A 2xx we could not read came from a working service.
      if (error.reason === 'unreadable-response') return 'up';
      return 'down';
  }
}

export function verdictFrom(error: ServiceError): Verdict {
  return {
    service: verdictOf(error),
    message: error.message,
    ...(error.kind === 'retryable' && error.settings ? { settings: true as const } : {}),
    ...(error.kind === 'retryable' && error.reason === 'network' ? { unsent: true as const } : {}),
    ...(error.kind === 'rejected' && error.status === 403 && writtenByTheService(error)
      ? { serviceWritten: true as const }
      : {}),
    ...('retryAfterMs' in error && error.retryAfterMs !== undefined ? { retryAfterMs: error.retryAfterMs } : {}),
  };
}

/**
 * What an answer leads to, decided once its attempt is stored (so the history includes it): the state change,
 * audited in one entry with that attempt (none: the attempt gets an entry of its own), the attention it calls
 * for, and whether the order is to be remembered as once in doubt if the change is made.
 */
export interface Decision {
  transition: AttemptTransition | null;
  attention?: OrderAttention;
  remembersInDoubt?: boolean;
}

/**
 * Stores `attempt` and makes the change `decide` names, with one audit entry for both, in one savepoint; then
 * remembers the order as once in doubt when the decision says so. Returns the decision's attention.
 */
export function recordDecision(
  ctx: StepContext,
  attempt: NewAttempt,
  decide: () => Decision,
): OrderAttention | undefined {
  const { store } = ctx;
  return store.inTransaction(() => {
    let decision: Decision = { transition: null };
    const moved = store.attempts.recordWithTransition(attempt, () => {
      decision = decide();
      return decision.transition;
    });
    if (moved && decision.remembersInDoubt) store.outboxQueue.markWasInDoubt(attempt.orderId);
    return decision.attention;
  });
}

/** Makes the decided change with an audit entry of its own (the calls that led to it are audited already). */
export function applyDecision(ctx: StepContext, orderId: number, decision: Decision): OrderAttention | undefined {
  const { store } = ctx;
  const { transition } = decision;
  if (!transition) return decision.attention;
  return store.inTransaction(() => {
    const moved = store.orders.transition(orderId, transition.from, transition.to, transition.patch, {
      actor: 'submitter',
      action: transition.action,
      ...(transition.details ? { details: transition.details } : {}),
    });
    if (moved && decision.remembersInDoubt) store.outboxQueue.markWasInDoubt(orderId);
    return decision.attention;
  });
}

/** Into `in_doubt` (from `sending`), looked up after `delayMs`; remembered for good once made. */
export function inDoubtDecision(
  ctx: StepContext,
  lastError: { kind: ServiceError['kind']; message: string; field?: string | null },
  delayMs: number,
): Decision {
  return {
    transition: {
      from: ['sending'],
      to: 'in_doubt',
      patch: { lastError, nextAttemptAt: new Date(ctx.now().getTime() + delayMs) },
      action: 'order.in-doubt',
      details: { errorKind: lastError.kind, errorMessage: clip(lastError.message) },
    },
    remembersInDoubt: true,
  };
}

/**
 * An order that must not be sent again and that asking again cannot settle: held for a person, told why. Held, not
 * set aside "after repeated failures": nothing failed. From `sending` (a create's answer decided it) it is remembered
 * as once in doubt, as from `in_doubt` it already is: a send of it may have landed.
 */
export function heldForAPerson(
  order: { environmentId: string; id: number; clinicCode: string; clinicOrderId: string },
  message: string,
  from: 'in_doubt' | 'sending' = 'in_doubt',
): Decision {
  return {
    transition: {
      from: [from],
      to: 'held',
      patch: { lastError: { kind: 'in-doubt', message }, nextAttemptAt: null },
      action: 'order.held',
      details: { errorKind: 'in-doubt', errorMessage: clip(message) },
    },
    attention: orderAttention(order, 'gave-up', message),
    ...(from === 'sending' ? { remembersInDoubt: true } : {}),
  };
}

/** The attempt row for a call's outcome. */
export function attemptOf(
  orderId: number,
  operation: AttemptOperation,
  startedAt: Date,
  outcome: CallOutcome<unknown>,
  remoteId: string | null = null,
): NewAttempt {
  return {
    orderId,
    operation,
    startedAt,
    // No answer at all (refused locally, or the connection failed): no latency to speak of.
    latencyMs: outcome.meta.attempts === 0 ? null : outcome.meta.latencyMs,
    httpStatus: outcome.meta.status ?? null,
    outcome: outcome.ok ? 'ok' : outcome.error.kind,
    errorMessage: outcome.ok ? null : outcome.error.message,
    remoteId,
  };
}

/**
 * After a failed attempt (already recorded): counts a failed create against the order when it says something
 * about the order (see `countsAgainst`; a create that may have acted is counted by its lookup instead, and lookups
 * and cancels are never given up on), and returns when to try again: backoff with full jitter over the run of
 * failed attempts of this operation, never before Retry-After.
 */
export function scheduleRetry(
  ctx: StepContext,
  orderId: number,
  operation: AttemptOperation,
  error: ServiceError,
): { failures: number; counted: boolean; at: Date } {
  const retryAfterMs = 'retryAfterMs' in error ? error.retryAfterMs : undefined;
  const history = ctx.store.attempts.list(orderId);
  const counted =
    operation === 'create' &&
    error.kind === 'retryable' &&
    error.reason !== 'rate-limited' &&
    countsAgainst(ctx, orderId, history);
  const failures = counted
    ? ctx.store.outboxQueue.countFailure(orderId)
    : (ctx.store.outboxQueue.retryMemory(orderId)?.failures ?? 0);
  const delay = retryDelayMs(
    Math.max(0, trailingFailures(history, operation) - 1),
    ctx.tuning,
    ctx.random,
    retryAfterMs,
  );
  return { failures, counted, at: new Date(ctx.now().getTime() + delay) };
}

/**
 * A failed send counts against the order if other orders got answers since its previous send started (or,
 * for its first send, since this one started): it keeps failing while others succeed.
 */
export function countsAgainst(ctx: StepContext, orderId: number, history: readonly AttemptRecord[]): boolean {
  const creates = history.filter((attempt) => attempt.operation === 'create');
  const previous = creates.at(-2) ?? creates.at(-1);
  const sinceMs = previous ? Date.parse(previous.startedAt) : ctx.now().getTime();
  return ctx.othersAnsweredSince(orderId, sinceMs);
}

/** How many attempts of `operation` in a row, counting back from the latest, did not succeed. */
export function trailingFailures(history: readonly AttemptRecord[], operation: AttemptOperation): number {
  let count = 0;
  for (let i = history.length - 1; i >= 0; i -= 1) {
    const attempt = history[i]!;
    if (attempt.operation !== operation) continue;
    if (attempt.outcome === 'ok') break;
    count += 1;
  }
  return count;
}

/** Audit details hold at most 1000 characters of a message (the service's texts are not bounded). */
export function clip(text: string, max = 1000): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** An error as the outbox's logs give it: its name and message. */
export function reasonOf(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : 'unknown error';
}

/** The first field the service named, if any. */
export function fieldOf(error: ServiceError): string | null {
  return error.kind === 'rejected' ? (error.fields[0]?.field.slice(0, 200) ?? null) : null;
}
