import type { ServiceError } from '../../../shared/errors.js';
import { asAccessRefused, readSameOrder, sentAgain } from './access-refusal.js';
import { outcomeWithoutPatientEcho } from './patient-echo.js';
import { otherHolder, settleCreateClash } from './pharmacy-id-clash.js';
import { mayHaveActed } from '../store/attempt-acted.js';
import type { CreateResponse } from '../../../shared/orders.js';
import type { CallOutcome } from '../service/client.js';
import type { AttemptTransition } from '../store/attempts-repo.js';
import type { ClaimedOrder, OrderRecord } from '../store/orders-repo.js';
import { orderAttention, type OrderAttention } from './attention.js';
import { retryDelayMs } from './backoff.js';
import { isDuplicateClinicOrderId, mayBeTheEarlierSend } from './duplicate-order.js';
import {
  ABANDONED_MESSAGE,
  abandoned,
  attemptOf,
  clip,
  fieldOf,
  inDoubtDecision,
  NONE,
  recordDecision,
  scheduleRetry,
  trailingFailures,
  UP,
  verdictFrom,
  type Abandoned,
  type Answer,
  type Decision,
  type Recorded,
  type StepContext,
} from './step.js';

/**
 * Sends one claimed order (state `sending`); the returned settle records the outcome: the attempt and the order's
 * new state, with one audit entry for both, in one transaction.
 *
 * | outcome                                        | order becomes                                                 |
 * | ---------------------------------------------- | ------------------------------------------------------------- |
 * | 2xx with an order id                           | created, with the pharmacy order id                           |
 * | retryable (network before sending, 429)        | queued again at backoff (Retry-After as a floor); held after maxAttempts counted failures |
 * | in doubt: 5xx or 408                           | in_doubt, looked up at that backoff before anything is sent again |
 * | in doubt: timeout, reset, unreadable 2xx       | in_doubt, looked up at the backoff, never before reconcileDelayMs; sent again only on a miss listingGraceMs after it |
 * | 401 after a refresh                            | queued, due now (not counted); the environment pauses for sign-in |
 * | 403 a renewed token draws too, the order's own | held: the patient is locked out, a person must act            |
 * | 403 in the service's words, its read got through | sent once more at once: that answer decides (a 403: held)  |
 * | 403 refusing every request (access-refusal.ts) | queued, due now (not counted); the environment stops as refused |
 * | 400 duplicate clinicOrderId after an attempt that may have acted | in_doubt, looked up now: it landed          |
 * | other 400 / 404 (or refused locally)           | rejected, with the message and field                          |
 * | abandoned by the outbox's stop                 | in_doubt if it may have arrived, else queued (unsent)         |
 */
export async function sendOrder(ctx: StepContext, order: ClaimedOrder): Promise<Answer> {
  const first = await createOnce(ctx, order);
  const { through } = first;
  if (!through) return first.answer;
  // Its 403 was in the service's own words, yet a read of the same order got through just after: the patient is
  // locked out, or what refused every request let requests through between the two (a firewall lifted). A 403 is
  // not acted on, so the create goes once more and its answer decides; a 403 again is the order's own.
  const again = await createOnce(ctx, order, false);
  const { verdict } = again.answer;
  return {
    verdict: verdict.serviceWritten ? { ...verdict, readGotThrough: true } : verdict,
    settle: () => {
      const attempt = attemptOf(order.id, 'create', through.startedAt, sentAgain(through.outcome));
      ctx.store.attempts.recordWithTransitionWithin(attempt, () => null);
      return again.answer.settle();
    },
  };
}

/**
 * One create, and for its 403 in the service's own words (`judge`) the read of the same order that judges it.
 * `through`: that read got through (the 403 and when it was sent).
 */
async function createOnce(
  ctx: StepContext,
  order: ClaimedOrder,
  judge = true,
): Promise<{ answer: Answer; through?: { startedAt: Date; outcome: CallOutcome<CreateResponse> } }> {
  const startedAt = ctx.now();
  const outcome = await ctx.client.sendCreate(order.route, order.requestBody, order.bodyChecked, {
    signal: ctx.signal,
  });
  if (abandoned(outcome)) {
    return { answer: { verdict: NONE, settle: () => settleAbandoned(ctx, order, startedAt, outcome) } };
  }
  // Stored, audited and shown (an environment's refusal quotes it too): without the patient values a service may
  // quote back (patient-echo.ts).
  const answered = outcomeWithoutPatientEcho(outcome, order.requestBody);
  const verdict = answered.ok ? UP : verdictFrom(answered.error);
  const settle = () => settleCreate(ctx, order, startedAt, answered);
  if (!judge || !verdict.serviceWritten) return { answer: { verdict, settle } };
  const read = await readSameOrder(ctx, order, startedAt.getTime());
  // Its lookup drew a 403 too: judged as the environment's refusal, as a 403 not in the service's envelope is.
  if (read === 'refused') delete verdict.serviceWritten;
  if (read !== 'through') return { answer: { verdict, settle } };
  verdict.readGotThrough = true;
  return { answer: { verdict, settle }, through: { startedAt, outcome: answered } };
}

/**
 * The stop cut the create short. Sent (or possibly sent): in doubt, with the attempt recorded, so the next start
 * looks it up before anything is sent again. Not sent: back to the queue, as a claim that never went.
 */
function settleAbandoned(ctx: StepContext, order: ClaimedOrder, startedAt: Date, outcome: Abandoned): Recorded {
  const { store } = ctx;
  if (!outcome.error.sent) {
    store.outboxQueue.unclaim([order.id]);
    return {};
  }
  const attempt = {
    orderId: order.id,
    operation: 'create' as const,
    startedAt,
    latencyMs: null,
    httpStatus: null,
    outcome: 'in-doubt' as const,
    errorMessage: ABANDONED_MESSAGE,
  };
  recordDecision(ctx, attempt, () =>
    inDoubtDecision(ctx, { kind: 'in-doubt', message: ABANDONED_MESSAGE }, ctx.tuning.reconcileDelayMs),
  );
  return {};
}

function settleCreate(
  ctx: StepContext,
  order: ClaimedOrder,
  startedAt: Date,
  outcome: CallOutcome<CreateResponse>,
): Recorded {
  const { store } = ctx;
  if (outcome.ok) {
    const holder = otherHolder(ctx, order, outcome.value.orderId);
    if (holder) return settleCreateClash(ctx, order, startedAt, outcome, holder);
    // A settle runs in the loop's savepoint for this answer (EnvironmentRunner#settle): none of its own needed.
    store.attempts.recordWithTransitionWithin(
      attemptOf(order.id, 'create', startedAt, outcome, String(outcome.value.orderId)),
      () => ({
        from: ['sending'],
        to: 'created',
        patch: { pharmacyOrderId: outcome.value.orderId, lastError: null, nextAttemptAt: null },
        action: 'order.created',
      }),
    );
    return { reached: true };
  }

  // A 403 refusing every request is recorded as what it is for this order: a wait, not a refusal.
  const refused = asAccessRefused(ctx, order.id, outcome);
  const failed = refused ?? outcome;
  const attention = recordDecision(ctx, attemptOf(order.id, 'create', startedAt, failed), () =>
    decideFailure(ctx, order, failed.error, refused !== undefined),
  );
  return attention ? { attention } : {};
}

/**
 * Where a failed create goes (its attempt is stored already, so the retry history includes it). `accessRefused`:
 * the environment refuses every request (access-refusal.ts), so it waits for that to end, due now, not counted: it
 * goes out once a request gets through, behind orders not yet tried.
 */
function decideFailure(ctx: StepContext, order: ClaimedOrder, error: ServiceError, accessRefused: boolean): Decision {
  const lastError = { kind: error.kind, message: error.message, field: fieldOf(error) };
  const move = (
    to: OrderRecord['state'],
    patch: AttemptTransition['patch'],
    action: string,
    attention?: OrderAttention,
  ): Decision => ({
    transition: {
      from: ['sending'],
      to,
      patch,
      action,
      details: {
        errorKind: error.kind,
        errorMessage: clip(error.message),
        ...(lastError.field ? { errorField: lastError.field } : {}),
      },
    },
    ...(attention ? { attention } : {}),
  });
  const attention = (reason: OrderAttention['reason'], message = error.message): OrderAttention =>
    orderAttention(order, reason, message, lastError.field);
  if (accessRefused) return move('queued', { lastError, nextAttemptAt: ctx.now() }, 'order.awaiting-access');

  switch (error.kind) {
    case 'retryable': {
      const retry = scheduleRetry(ctx, order.id, 'create', error);
      if (retry.counted && retry.failures >= ctx.tuning.maxAttempts) {
        const message = `gave up after ${retry.failures} attempts: ${error.message}`;
        return move(
          'held',
          { lastError: { ...lastError, message }, nextAttemptAt: null },
          'order.set-aside',
          attention('gave-up', message),
        );
      }
      return move('queued', { lastError, nextAttemptAt: retry.at }, 'order.retry-scheduled');
    }
    case 'in-doubt':
      // Its lookup waits the backoff a retry would have (Retry-After a floor), and never less than the grace a slow
      // commit needs to land. With the grace alone, a proxy answering every create with its own page (an order
      // looked up, not found and sent again) had the order given up on after eight sends in 16 seconds.
      return inDoubtDecision(ctx, lastError, lookUpDelay(ctx, order.id, error.retryAfterMs));
    case 'auth':
      // Nothing reached the service; the order waits for sign-in, which pauses the environment.
      return move('queued', { lastError, nextAttemptAt: null }, 'order.awaiting-sign-in');
    case 'rejected': {
      // A 403 that is this order's own (one refusing every request does not get here: accessRefused).
      if (error.status === 403) {
        return move('held', { lastError, nextAttemptAt: null }, 'order.held', attention('locked-out'));
      }
      if (mayBeTheEarlierSend(error) && earlierSendMayHaveActed(ctx, order.id)) {
        // An earlier send that got no clear answer (none, or a 5xx) did land: look it up (now) for its id.
        const message = isDuplicateClinicOrderId(error)
          ? `the service already has this order from an earlier send: looking it up (${error.message})`
          : `the service answered a conflict after an earlier send that may have landed: looking it up (${error.message})`;
        return inDoubtDecision(ctx, { ...lastError, kind: 'in-doubt', message }, 0);
      }
      return move('rejected', { lastError, nextAttemptAt: null }, 'order.rejected', attention('rejected'));
    }
  }
}

/**
 * Whether an earlier create of this order may have taken effect: remembered as once in doubt, or (for attempts an
 * earlier version recorded, when a 5xx counted as "nothing happened") a create in its history that got a 5xx/408.
 * Read only when the service answers "duplicate", so the usual path pays nothing for it.
 */
function earlierSendMayHaveActed(ctx: StepContext, orderId: number): boolean {
  if (ctx.store.outboxQueue.retryMemory(orderId)?.wasInDoubt) return true;
  // The duplicate's own attempt is stored already: leave it out.
  return ctx.store.attempts
    .list(orderId)
    .slice(0, -1)
    .some((attempt) => attempt.operation === 'create' && mayHaveActed(attempt));
}

/** The backoff over the run of failed creates (this one included), never before Retry-After or reconcileDelayMs. */
function lookUpDelay(ctx: StepContext, orderId: number, retryAfterMs: number | undefined): number {
  const failures = trailingFailures(ctx.store.attempts.list(orderId), 'create');
  const backoff = retryDelayMs(Math.max(0, failures - 1), ctx.tuning, ctx.random, retryAfterMs);
  return Math.max(ctx.tuning.reconcileDelayMs, backoff);
}

/**
 * Into `in_doubt` without an attempt to record (a step that failed, start-up recovery): remembered for good (a
 * later duplicate then means "created"), looked up after `delayMs`.
 */
export function toInDoubt(
  ctx: StepContext,
  orderId: number,
  from: 'sending',
  lastError: { kind: ServiceError['kind']; message: string; field?: string | null },
  delayMs: number,
  actor: 'submitter' | 'system' = 'submitter',
  action = 'order.in-doubt',
): boolean {
  const { store } = ctx;
  return store.inTransaction(() => {
    const moved = store.orders.transition(
      orderId,
      [from],
      'in_doubt',
      { lastError, nextAttemptAt: new Date(ctx.now().getTime() + delayMs) },
      { actor, action, details: { errorKind: lastError.kind, errorMessage: clip(lastError.message) } },
    );
    if (moved) store.outboxQueue.markWasInDoubt(orderId);
    return moved;
  });
}
