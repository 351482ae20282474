import type { ServiceError } from '../../../shared/errors.js';
import type { CreateResponse } from '../../../shared/orders.js';
import type { CallOutcome } from '../service/client.js';
import type { OrderRecord } from '../store/orders-repo.js';
import type { OrderAttention } from './attention.js';
import { isDuplicateClinicOrderId } from './duplicate-order.js';
import { checkServiceAfter, type ServiceCheck } from './service-check.js';
import {
  attemptOf,
  clip,
  fieldOf,
  scheduleRetry,
  UP,
  verdictFrom,
  type Answer,
  type Recorded,
  type StepContext,
} from './step.js';

/**
 * Sends one claimed order (state `sending`); the returned settle records the outcome: the attempt, the order's
 * new state and their audit entries in one transaction.
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
export async function sendOrder(ctx: StepContext, order: OrderRecord): Promise<Answer> {
  const startedAt = ctx.now();
  const outcome = await ctx.client.sendCreate(order.route, order.requestBody);
  const check = outcome.ok ? null : await checkServiceAfter(ctx, order, outcome.error, startedAt);
  return {
    verdict: outcome.ok ? UP : verdictFrom(outcome.error),
    settle: () => settleCreate(ctx, order, startedAt, outcome, check),
  };
}

function settleCreate(
  ctx: StepContext,
  order: OrderRecord,
  startedAt: Date,
  outcome: CallOutcome<CreateResponse>,
  check: ServiceCheck | null,
): Recorded {
  const { store } = ctx;
  if (outcome.ok) {
    const remoteId = String(outcome.value.orderId);
    store.inTransaction(() => {
      store.attempts.record(attemptOf(order.id, 'create', startedAt, outcome, remoteId));
      store.orders.transition(
        order.id,
        ['sending'],
        'created',
        { pharmacyOrderId: outcome.value.orderId, lastError: null, nextAttemptAt: null },
        { actor: 'submitter', action: 'order.created', details: { remoteId } },
      );
    });
    return { reached: true };
  }

  const { error } = outcome;
  const attention = store.inTransaction((): OrderAttention | undefined => {
    store.attempts.record(attemptOf(order.id, 'create', startedAt, outcome));
    if (check) store.attempts.record(attemptOf(order.id, 'lookup', check.startedAt, check.outcome));
    if (check?.found) {
      // Listed at the service despite the 5xx: settle it by lookup (adopting its id), never by sending again.
      const message = `the service failed (${error.message}) but lists this order: looking it up`;
      toInDoubt(ctx, order.id, 'sending', { kind: 'in-doubt', message }, 0);
      return undefined;
    }
    return settleFailure(ctx, order, error, check?.serviceUp ?? false);
  });
  return attention ? { attention } : {};
}

function settleFailure(
  ctx: StepContext,
  order: OrderRecord,
  error: ServiceError,
  serviceUp: boolean,
): OrderAttention | undefined {
  const { store } = ctx;
  const lastError = { kind: error.kind, message: error.message, field: fieldOf(error) };
  const move = (to: OrderRecord['state'], patch: Parameters<typeof store.orders.transition>[3], action: string) =>
    store.orders.transition(order.id, ['sending'], to, patch, {
      actor: 'submitter',
      action,
      details: {
        errorKind: error.kind,
        errorMessage: clip(error.message),
        ...(lastError.field ? { errorField: lastError.field } : {}),
      },
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
        move('held', { lastError: { ...lastError, message }, nextAttemptAt: null }, 'order.set-aside');
        return attention('gave-up', message);
      }
      move('queued', { lastError, nextAttemptAt: retry.at }, 'order.retry-scheduled');
      return undefined;
    }
    case 'in-doubt':
      toInDoubt(ctx, order.id, 'sending', lastError, ctx.tuning.reconcileDelayMs);
      return undefined;
    case 'auth':
      // Nothing reached the service; the order waits for sign-in, which pauses the environment.
      move('queued', { lastError, nextAttemptAt: null }, 'order.awaiting-sign-in');
      return undefined;
    case 'rejected': {
      if (error.status === 403) {
        move('held', { lastError, nextAttemptAt: null }, 'order.held');
        return attention('locked-out');
      }
      if (isDuplicateClinicOrderId(error) && store.outboxQueue.retryMemory(order.id)?.wasInDoubt) {
        // An earlier unanswered send did land: look it up (now) for its pharmacy order id.
        const message = `the service already has this order from an unanswered send: looking it up (${error.message})`;
        toInDoubt(ctx, order.id, 'sending', { ...lastError, kind: 'in-doubt', message }, 0);
        return undefined;
      }
      move('rejected', { lastError, nextAttemptAt: null }, 'order.rejected');
      return attention('rejected');
    }
  }
}

/** Into `in_doubt`, remembered for good (a later duplicate then means "created"), looked up after `delayMs`. */
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
