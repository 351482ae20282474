import type { ServiceError } from '../../../shared/errors.js';
import type { StatusRecord } from '../../../shared/status.js';
import type { CallOutcome } from '../service/client.js';
import type { DueCancel } from '../store/outbox-queue-repo.js';
import type { OrderAttention } from './attention.js';
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

/** The remote status that means the order is cancelled (the poller confirms `cancelled` by it). */
export const CANCELLED_STATUS = 'Cancelled';

/**
 * Sends one cancel command (order `cancel_requested`, cancellation `requested`) with the clinic code and reason,
 * paced and retried like creates:
 * - 2xx → order `cancel_sent`, cancellation `sent`; the status poller confirms `cancelled`.
 * - 400/403/404 → the order's status is checked first: already `Cancelled` (our earlier unanswered cancel, or
 *   the pharmacy) → `cancel_sent` as above; otherwise → `cancel_refused` with the service's reason, and the
 *   cancellation ends `refused`. If the status check itself fails, the command waits and is sent again.
 * - unanswered (in doubt) or retryable → sent again later: a cancel is safe to repeat. It is never given up on
 *   (no attempt limit): a dropped cancel would leave a withdrawn order in force at the pharmacy.
 * - 401 → waits for sign-in.
 */
export async function sendCancel(ctx: StepContext, command: DueCancel): Promise<Answer> {
  const startedAt = ctx.now();
  const outcome = await ctx.client.cancel({
    orderId: command.pharmacyOrderId,
    clinicCode: command.clinicCode,
    cancelReason: command.reason,
  });
  // Refused by the service: if the order is cancelled already, our cancel's goal is met; otherwise it stands.
  const refusal = !outcome.ok && outcome.error.kind === 'rejected' && outcome.error.status !== 0 ? outcome.error : null;
  if (refusal) {
    const checkStartedAt = ctx.now();
    const check = await ctx.client.status(command.pharmacyOrderId);
    return {
      verdict: check.ok || check.error.kind === 'rejected' ? UP : verdictFrom(check.error),
      settle: () => settleRefusal(ctx, command, { startedAt, outcome, error: refusal }, { checkStartedAt, check }),
    };
  }
  return {
    verdict: outcome.ok ? UP : verdictFrom(outcome.error),
    settle: () => settleCancel(ctx, command, startedAt, outcome),
  };
}

function settleCancel(
  ctx: StepContext,
  command: DueCancel,
  startedAt: Date,
  outcome: CallOutcome<StatusRecord>,
): Recorded {
  const { store } = ctx;
  if (outcome.ok) {
    store.inTransaction(() => {
      store.attempts.record(attemptOf(command.orderId, 'cancel', startedAt, outcome, String(command.pharmacyOrderId)));
      markSent(ctx, command);
    });
    return {};
  }
  const { error } = outcome;
  if (error.kind === 'rejected') {
    // Refused before sending (the stored reason breaks the schema): the service would refuse it too.
    const attention = store.inTransaction(() => {
      store.attempts.record(attemptOf(command.orderId, 'cancel', startedAt, outcome));
      return refuse(ctx, command, error);
    });
    return { attention };
  }
  store.inTransaction(() => {
    store.attempts.record(attemptOf(command.orderId, 'cancel', startedAt, outcome));
    waitAndRetry(ctx, command, error);
  });
  return {};
}

function settleRefusal(
  ctx: StepContext,
  command: DueCancel,
  cancel: { startedAt: Date; outcome: CallOutcome<StatusRecord>; error: Extract<ServiceError, { kind: 'rejected' }> },
  status: { checkStartedAt: Date; check: CallOutcome<StatusRecord> },
): Recorded {
  const { store } = ctx;
  const { check } = status;
  const attention = store.inTransaction((): OrderAttention | undefined => {
    store.attempts.record(attemptOf(command.orderId, 'cancel', cancel.startedAt, cancel.outcome));
    const checkRemoteId = check.ok ? check.value.pharmacyOrderId : null;
    store.attempts.record(attemptOf(command.orderId, 'status', status.checkStartedAt, check, checkRemoteId));
    if (check.ok && check.value.orderStatus === CANCELLED_STATUS) {
      markSent(ctx, command);
      return undefined;
    }
    if (!check.ok && check.error.kind !== 'rejected') {
      waitAndRetry(ctx, command, check.error);
      return undefined;
    }
    return refuse(ctx, command, cancel.error);
  });
  return attention ? { attention } : {};
}

function markSent(ctx: StepContext, command: DueCancel): void {
  const { store } = ctx;
  const moved = store.orders.transition(
    command.orderId,
    ['cancel_requested'],
    'cancel_sent',
    { lastError: null, nextAttemptAt: null },
    { actor: 'submitter', action: 'order.cancel-sent', details: { remoteId: String(command.pharmacyOrderId) } },
  );
  if (moved) store.cancellations.markSent(command.cancellationId);
}

function refuse(
  ctx: StepContext,
  command: DueCancel,
  error: Extract<ServiceError, { kind: 'rejected' }>,
): OrderAttention {
  const { store } = ctx;
  const field = fieldOf(error);
  const moved = store.orders.transition(
    command.orderId,
    ['cancel_requested'],
    'cancel_refused',
    { lastError: { kind: 'rejected', message: error.message, field }, nextAttemptAt: null },
    {
      actor: 'submitter',
      action: 'order.cancel-refused',
      details: {
        ...(error.status >= 100 ? { httpStatus: error.status } : {}),
        errorKind: 'rejected',
        errorMessage: clip(error.message),
      },
    },
  );
  if (moved && store.cancellations.markSent(command.cancellationId)) {
    store.cancellations.finish(command.cancellationId, 'refused', error.message);
  }
  return {
    kind: 'order',
    environmentId: ctx.environmentId,
    reason: 'cancel-refused',
    orderId: command.orderId,
    clinicCode: command.clinicCode,
    clinicOrderId: command.clinicOrderId,
    message: error.message,
    field,
  };
}

/** The command stays open; a sign-in problem waits for the sign-in, anything else for a backoff. */
function waitAndRetry(ctx: StepContext, command: DueCancel, error: ServiceError): void {
  const at =
    error.kind === 'auth'
      ? null
      : error.kind === 'in-doubt'
        ? new Date(ctx.now().getTime() + ctx.tuning.reconcileDelayMs)
        : scheduleRetry(ctx, command.orderId, 'cancel', error).at;
  ctx.store.outboxQueue.reschedule(command.orderId, 'cancel_requested', at, {
    kind: error.kind,
    message: clip(`cancel not sent yet: ${error.message}`),
  });
}
