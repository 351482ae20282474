import type { ServiceError } from '../../../shared/errors.js';
import type { CreateResponse } from '../../../shared/orders.js';
import type { CallOutcome } from '../service/client.js';
import type { AttemptTransition } from '../store/attempts-repo.js';
import type { ClaimedOrder, OrderRecord } from '../store/orders-repo.js';
import type { OrderAttention } from './attention.js';
import { isDuplicateClinicOrderId } from './duplicate-order.js';
import { checkServiceAfter, type ServiceCheck } from './service-check.js';
import {
  applyDecision,
  attemptOf,
  clip,
  fieldOf,
  inDoubtDecision,
  recordDecision,
  scheduleRetry,
  UP,
  verdictFrom,
  type Answer,
  type Decision,
  type Recorded,
  type StepContext,
} from './step.js';

/**
 * Sends one claimed order (state `sending`); the returned settle records the outcome: the attempt and the order's
 * new state, with one audit entry for both, in one transaction.
 *
 * | outcome                                   | order becomes                                                      |
 * | ----------------------------------------- | ------------------------------------------------------------------ |
 * | 2xx with an order id                      | created, with the pharmacy order id                                |
 * | retryable (network before sending, 5xx, 429) | queued again at backoff (Retry-After as a floor); held after maxAttempts counted failures |
 * | in doubt (timeout, reset, unreadable 2xx) | in_doubt: looked up before anything is sent again                  |
 * | 401 after a refresh                       | queued, due now (not counted); the environment pauses for sign-in  |
 * | 403                                       | held: the patient is locked out, a person must act                 |
 * | 400 duplicate clinicOrderId, was in doubt | in_doubt: the service has it from the unanswered send; look it up  |
 * | other 400 / 404 (or refused locally)      | rejected, with the message and field                               |
 */
export async function sendOrder(ctx: StepContext, order: ClaimedOrder): Promise<Answer> {
  const startedAt = ctx.now();
  const outcome = await ctx.client.sendCreate(order.route, order.requestBody, order.bodyChecked);
  const check = outcome.ok ? null : await checkServiceAfter(ctx, order, outcome.error, startedAt);
  return {
    verdict: outcome.ok ? UP : verdictFrom(outcome.error),
    settle: () => settleCreate(ctx, order, startedAt, outcome, check),
  };
}

function settleCreate(
  ctx: StepContext,
  order: ClaimedOrder,
  startedAt: Date,
  outcome: CallOutcome<CreateResponse>,
  check: ServiceCheck | null,
): Recorded {
  const { store } = ctx;
  if (outcome.ok) {
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

  const { error } = outcome;
  const create = attemptOf(order.id, 'create', startedAt, outcome);
  if (!check) {
    const attention = recordDecision(ctx, create, () => decideFailure(ctx, order, error, false));
    return attention ? { attention } : {};
  }
  // Two calls decided this (the create, the lookup checking on the service): each is audited, the change too.
  const attention = store.inTransaction(() => {
    store.attempts.record(create);
    store.attempts.record(attemptOf(order.id, 'lookup', check.startedAt, check.outcome));
    if (!check.found) return applyDecision(ctx, order.id, decideFailure(ctx, order, error, check.serviceUp));
    // Listed at the service despite the 5xx: settle it by lookup (adopting its id), never by sending again.
    const message = `the service failed (${error.message}) but lists this order: looking it up`;
    return applyDecision(ctx, order.id, inDoubtDecision(ctx, { kind: 'in-doubt', message }, 0));
  });
  return attention ? { attention } : {};
}

/** Where a failed create goes (its attempt is stored already, so the retry history includes it). */
function decideFailure(ctx: StepContext, order: ClaimedOrder, error: ServiceError, serviceUp: boolean): Decision {
  const { store } = ctx;
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
  const attention = (reason: OrderAttention['reason'], message = error.message): OrderAttention => ({
    kind: 'order',
    environmentId: order.environmentId,
    reason,
    orderId: order.id,
    clinicCode: order.clinicCode,
    clinicOrderId: order.clinicOrderId,
    message,
    field: lastError.field,
  });

  switch (error.kind) {
    case 'retryable': {
      const retry = scheduleRetry(ctx, order.id, 'create', error, serviceUp);
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
      return inDoubtDecision(ctx, lastError, ctx.tuning.reconcileDelayMs);
    case 'auth':
      // Nothing reached the service; the order waits for sign-in, which pauses the environment.
      return move('queued', { lastError, nextAttemptAt: null }, 'order.awaiting-sign-in');
    case 'rejected': {
      if (error.status === 403) {
        return move('held', { lastError, nextAttemptAt: null }, 'order.held', attention('locked-out'));
      }
      if (isDuplicateClinicOrderId(error) && store.outboxQueue.retryMemory(order.id)?.wasInDoubt) {
        // An earlier unanswered send did land: look it up (now) for its pharmacy order id.
        const message = `the service already has this order from an unanswered send: looking it up (${error.message})`;
        return inDoubtDecision(ctx, { ...lastError, kind: 'in-doubt', message }, 0);
      }
      return move('rejected', { lastError, nextAttemptAt: null }, 'order.rejected', attention('rejected'));
    }
  }
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
