import type { ServiceError } from '../../../shared/errors.js';
import { mayHaveActed } from '../store/attempt-acted.js';
import { canonicalStatus, DISPATCHED_STATUSES, namesAnotherClinic, type StatusRecord } from '../../../shared/status.js';
import type { CallOutcome, CancellableOutcome } from '../service/client.js';
import type { AttemptTransition, NewAttempt } from '../store/attempts-repo.js';
import type { DueCancel } from '../store/outbox-queue-repo.js';
import { asAccessRefused } from './access-refusal.js';
import type { OrderAttention } from './attention.js';
import { retryDelayMs } from './backoff.js';
import { outcomeWithoutPatientEcho } from './patient-echo.js';
import {
  ABANDONED_MESSAGE,
  abandoned,
  attemptOf,
  clip,
  fieldOf,
  NONE,
  scheduleRetry,
  trailingFailures,
  UP,
  verdictFrom,
  type Abandoned,
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
 *   cancellation ends `refused`. If the status check itself fails, or both drew a 403 refusing every request
 *   (access-refusal.ts), the command waits and is sent again.
 * - in doubt (no answer, an unreadable one, a 5xx: it may have taken effect) → the next turn checks the order's
 *   status before sending it again: already `Cancelled` → done as above; else the cancel goes again.
 * - retryable (not sent, 429) → sent again later. It is never given up on (no attempt limit): a dropped cancel
 *   would leave a withdrawn order in force at the pharmacy.
 * - 401 → waits for sign-in.
 * Each status check is scoped to the order's own clinic (`checkStatus`), and only a record about this order counts.
 */
export async function sendCancel(ctx: StepContext, command: DueCancel): Promise<Answer> {
  if (lastCancelMayHaveActed(ctx, command.orderId)) {
    const checkStartedAt = ctx.now();
    const check = await checkStatus(ctx, command);
    if (abandoned(check)) return { verdict: NONE, settle: () => ({}) };
    if (isCancelled(check, command)) {
      return { verdict: UP, settle: () => settleCancelledAlready(ctx, command, checkStartedAt, check) };
    }
    if (!check.ok && check.error.kind !== 'rejected') {
      return {
        verdict: verdictFrom(check.error),
        settle: () => settleCheckFailed(ctx, command, checkStartedAt, check),
      };
    }
    // Not cancelled (or the service would not say): the earlier cancel did not take effect, or not visibly yet. Send
    // it again, with the check on record; its own answer decides (a refusal is checked against the status again).
    const resent = await send(ctx, command);
    return {
      verdict: resent.verdict,
      settle: () => {
        ctx.store.attempts.record(
          attemptOf(command.orderId, 'status', checkStartedAt, check, remoteIdIn(check, command)),
        );
        return resent.settle();
      },
    };
  }
  return send(ctx, command);
}

async function send(ctx: StepContext, command: DueCancel): Promise<Answer> {
  const startedAt = ctx.now();
  const outcome = withoutEcho(
    ctx,
    command,
    await ctx.client.cancel(
      { orderId: command.pharmacyOrderId, clinicCode: command.clinicCode, cancelReason: command.reason },
      { signal: ctx.signal },
    ),
  );
  if (abandoned(outcome)) return { verdict: NONE, settle: () => settleAbandoned(ctx, command, startedAt, outcome) };
  // Refused by the service: if the order is cancelled already, our cancel's goal is met; otherwise it stands.
  const refusal = !outcome.ok && outcome.error.kind === 'rejected' && outcome.error.status !== 0 ? outcome.error : null;
  if (refusal) {
    const checkStartedAt = ctx.now();
    const check = await checkStatus(ctx, command);
    if (abandoned(check)) {
      // Refused, and the check cut short: the refusal is on record, and the next start asks again.
      return { verdict: UP, settle: () => recordOnly(ctx, command, startedAt, outcome) };
    }
    // The check decides what the service said: it answered (even refusing, but with a plain 403, which may refuse
    // every request: access-refusal.ts), or it is down.
    const checkAnswered = check.ok || (check.error.kind === 'rejected' && check.error.status !== 403);
    return {
      verdict: checkAnswered ? UP : verdictFrom(check.error),
      settle: () => settleRefusal(ctx, command, { startedAt, outcome, error: refusal }, { checkStartedAt, check }),
    };
  }
  return {
    verdict: outcome.ok ? UP : verdictFrom(outcome.error),
    settle: () => settleCancel(ctx, command, startedAt, outcome),
  };
}

/**
 * The order's status from the service, asked within the order's own clinic (`status-with-clinic-code` with its
 * clinic code and pharmacy order id; cancels are clinic-scoped too). The unscoped `status?orderId=` is not asked:
 * it answers whichever clinic's order has that id, and its one record was trusted if it named our pharmacy id,
 * whatever clinic order id it gave.
 */
async function checkStatus(ctx: StepContext, command: DueCancel): Promise<CancellableOutcome<StatusRecord[]>> {
  const outcome = await ctx.client.statusWithClinicCode(
    { clinicCode: command.clinicCode, orderId: command.pharmacyOrderId },
    { signal: ctx.signal },
  );
  return withoutEcho(ctx, command, outcome);
}

/** The outcome without the patient values a service may quote back (patient-echo.ts): its message is stored. */
function withoutEcho<T>(ctx: StepContext, command: DueCancel, outcome: CancellableOutcome<T>): CancellableOutcome<T> {
  if (outcome.ok || outcome.error.kind === 'cancelled') return outcome;
  return outcomeWithoutPatientEcho(outcome, ctx.store.orders.get(command.orderId)?.requestBody ?? '');
}

/**
 * The record about this order in a status answer: it names our pharmacy order id, our clinic order id or none, and
 * our clinic or none.
 * A record about another order (a service or cache that mixed answers up, a list of the clinic's orders) says
 * nothing about ours: taking its "Cancelled" would end our cancel unsent, the prescription still live.
 */
function recordAbout(check: CallOutcome<StatusRecord[]>, command: DueCancel): StatusRecord | undefined {
  if (!check.ok) return undefined;
  const pharmacyId = String(command.pharmacyOrderId);
  return check.value.find(
    (record) =>
      record.pharmacyOrderId === pharmacyId &&
      (record.clinicOrderId ?? command.clinicOrderId) === command.clinicOrderId &&
      !namesAnotherClinic(record, command.clinicCode),
  );
}

function isCancelled(check: CallOutcome<StatusRecord[]>, command: DueCancel): boolean {
  return recordAbout(check, command)?.orderStatus === CANCELLED_STATUS;
}

function remoteIdIn(check: CallOutcome<StatusRecord[]>, command: DueCancel): string | null {
  return recordAbout(check, command)?.pharmacyOrderId ?? null;
}

/**
 * Whether this order's latest cancel may have taken effect without our knowing (in doubt): then its status is
 * checked before the cancel goes again. Cancels are few, so reading the order's history here costs nothing that
 * matters.
 */
function lastCancelMayHaveActed(ctx: StepContext, orderId: number): boolean {
  const last = ctx.store.attempts.list(orderId).findLast((attempt) => attempt.operation === 'cancel');
  return last !== undefined && mayHaveActed(last);
}

/** The earlier cancel took effect (or the pharmacy cancelled): the status check is the call that decided it. */
function settleCancelledAlready(
  ctx: StepContext,
  command: DueCancel,
  checkStartedAt: Date,
  check: CallOutcome<StatusRecord[]>,
): Recorded {
  const attempt = attemptOf(command.orderId, 'status', checkStartedAt, check, remoteIdIn(check, command));
  recordChange(ctx, command, attempt, sent(command));
  return {};
}

/** The status check failed: the command waits and the check is made again before the cancel goes. */
function settleCheckFailed(
  ctx: StepContext,
  command: DueCancel,
  checkStartedAt: Date,
  check: Extract<CallOutcome<StatusRecord[]>, { ok: false }>,
): Recorded {
  const { store } = ctx;
  store.inTransaction(() => {
    store.attempts.record(attemptOf(command.orderId, 'status', checkStartedAt, check));
    waitAndRetry(ctx, command, check.error, 'status');
  });
  return {};
}

/** The stop cut the cancel short after it may have arrived: on record as in doubt, so its status is checked first. */
function settleAbandoned(ctx: StepContext, command: DueCancel, startedAt: Date, outcome: Abandoned): Recorded {
  if (!outcome.error.sent) return {};
  const { store } = ctx;
  store.inTransaction(() => {
    store.attempts.record({
      orderId: command.orderId,
      operation: 'cancel',
      startedAt,
      latencyMs: null,
      httpStatus: null,
      outcome: 'in-doubt',
      errorMessage: ABANDONED_MESSAGE,
    });
    store.outboxQueue.reschedule(command.orderId, 'cancel_requested', new Date(ctx.now().getTime()), {
      kind: 'in-doubt',
      message: clip(`cancel not confirmed yet: ${ABANDONED_MESSAGE}`),
    });
  });
  return {};
}

function recordOnly(
  ctx: StepContext,
  command: DueCancel,
  startedAt: Date,
  outcome: CallOutcome<StatusRecord>,
): Recorded {
  ctx.store.attempts.record(attemptOf(command.orderId, 'cancel', startedAt, outcome));
  return {};
}

function settleCancel(
  ctx: StepContext,
  command: DueCancel,
  startedAt: Date,
  outcome: CallOutcome<StatusRecord>,
): Recorded {
  const { store } = ctx;
  if (outcome.ok) {
    const attempt = attemptOf(command.orderId, 'cancel', startedAt, outcome, String(command.pharmacyOrderId));
    const past = pastCancelling(outcome.value, command);
    if (past) {
      // Taken, says the 2xx, but the record it gives is of an order already dispatched: it was not cancelled. Said at
      // once, where it waited as sent until the next status refresh said so.
      const error = {
        kind: 'rejected' as const,
        status: outcome.meta.status ?? 200,
        message: `the service took the cancel, but its answer shows the order "${past}": it was not cancelled`,
        fields: [],
      };
      recordChange(ctx, command, attempt, refused(error));
      return { attention: refusedAttention(ctx, command, error) };
    }
    recordChange(ctx, command, attempt, sent(command));
    return {};
  }
  const { error } = outcome;
  if (error.kind === 'rejected') {
    // Refused before sending (the stored reason breaks the schema): the service would refuse it too.
    recordChange(ctx, command, attemptOf(command.orderId, 'cancel', startedAt, outcome), refused(error));
    return { attention: refusedAttention(ctx, command, error) };
  }
  store.inTransaction(() => {
    store.attempts.record(attemptOf(command.orderId, 'cancel', startedAt, outcome));
    waitAndRetry(ctx, command, error);
  });
  return {};
}

/** The status of a cancel's answer about this order when it is past cancelling (dispatched or processed). */
function pastCancelling(record: StatusRecord, command: DueCancel): string | undefined {
  if (record.pharmacyOrderId != null && record.pharmacyOrderId !== String(command.pharmacyOrderId)) return undefined;
  if (record.clinicOrderId != null && record.clinicOrderId !== command.clinicOrderId) return undefined;
  const status = record.orderStatus == null ? '' : canonicalStatus(record.orderStatus);
  return DISPATCHED_STATUSES.includes(status) ? status : undefined;
}

/** Two calls decided this one (the refused cancel, the status check): each is audited, and the change on its own. */
function settleRefusal(
  ctx: StepContext,
  command: DueCancel,
  cancel: { startedAt: Date; outcome: CallOutcome<StatusRecord>; error: Extract<ServiceError, { kind: 'rejected' }> },
  status: { checkStartedAt: Date; check: CallOutcome<StatusRecord[]> },
): Recorded {
  const { store } = ctx;
  const blocked = asAccessRefused(ctx, command.orderId, status.check);
  if (blocked) {
    // Both refused by a refusal of every request: nothing was said about the order, and the cancel was not acted on.
    return store.inTransaction((): Recorded => {
      const said = asAccessRefused(ctx, command.orderId, cancel.outcome) ?? cancel.outcome;
      store.attempts.record(attemptOf(command.orderId, 'cancel', cancel.startedAt, said));
      store.attempts.record(attemptOf(command.orderId, 'status', status.checkStartedAt, blocked));
      waitAndRetry(ctx, command, blocked.error);
      return {};
    });
  }
  const { check } = status;
  return store.inTransaction((): Recorded => {
    store.attempts.record(attemptOf(command.orderId, 'cancel', cancel.startedAt, cancel.outcome));
    store.attempts.record(
      attemptOf(command.orderId, 'status', status.checkStartedAt, check, remoteIdIn(check, command)),
    );
    if (isCancelled(check, command)) {
      applyChange(ctx, command, sent(command));
      return {};
    }
    if (!check.ok && check.error.kind !== 'rejected') {
      waitAndRetry(ctx, command, check.error);
      return {};
    }
    const said = check.ok ? cancel.error : statusUnknown(cancel.error, check.error);
    applyChange(ctx, command, refused(said));
    return { attention: refusedAttention(ctx, command, said) };
  });
}

/**
 * The cancel refused and the status check refused too: the service said nothing about the order's state, so the
 * refusal is not evidence that the order is still in force (a cancel can be refused because it already took
 * effect). Both answers are told, and that whether the order is cancelled is not known.
 */
function statusUnknown(
  cancel: Extract<ServiceError, { kind: 'rejected' }>,
  check: ServiceError,
): Extract<ServiceError, { kind: 'rejected' }> {
  return {
    ...cancel,
    message: clip(
      `whether the order is cancelled is not known (check with the pharmacy): the service refused the cancel (${cancel.message}) and refused to give the order's status too (${check.message})`,
    ),
  };
}

/** How the cancellation ends when the order moves. */
type CancellationEnd = { transition: AttemptTransition; refusal?: string };

/** Records the attempt with the order's move (one audit entry), and the cancellation's when the order moved. */
function recordChange(ctx: StepContext, command: DueCancel, attempt: NewAttempt, end: CancellationEnd): void {
  const { store } = ctx;
  store.inTransaction(() => {
    if (store.attempts.recordWithTransition(attempt, () => end.transition)) endCancellation(ctx, command, end);
  });
}

/** The order's move with an audit entry of its own, and the cancellation's when the order moved. */
function applyChange(ctx: StepContext, command: DueCancel, end: CancellationEnd): void {
  const { transition } = end;
  const moved = ctx.store.orders.transition(command.orderId, transition.from, transition.to, transition.patch, {
    actor: 'submitter',
    action: transition.action,
    ...(transition.details ? { details: transition.details } : {}),
  });
  if (moved) endCancellation(ctx, command, end);
}

function endCancellation(ctx: StepContext, command: DueCancel, end: CancellationEnd): void {
  const { cancellations } = ctx.store;
  if (cancellations.markSent(command.cancellationId) && end.refusal !== undefined) {
    cancellations.finish(command.cancellationId, 'refused', end.refusal);
  }
}

/** Sent (or cancelled already): the poller confirms `cancelled` from the order's status. */
function sent(command: DueCancel): CancellationEnd {
  return {
    transition: {
      from: ['cancel_requested'],
      to: 'cancel_sent',
      patch: { lastError: null, nextAttemptAt: null },
      action: 'order.cancel-sent',
      details: { remoteId: String(command.pharmacyOrderId) },
    },
  };
}

function refused(error: Extract<ServiceError, { kind: 'rejected' }>): CancellationEnd {
  return {
    transition: {
      from: ['cancel_requested'],
      to: 'cancel_refused',
      patch: { lastError: { kind: 'rejected', message: error.message, field: fieldOf(error) }, nextAttemptAt: null },
      action: 'order.cancel-refused',
      details: {
        ...(error.status >= 100 ? { httpStatus: error.status } : {}),
        errorKind: 'rejected',
        errorMessage: clip(error.message),
      },
    },
    refusal: error.message,
  };
}

function refusedAttention(
  ctx: StepContext,
  command: DueCancel,
  error: Extract<ServiceError, { kind: 'rejected' }>,
): OrderAttention {
  return {
    kind: 'order',
    environmentId: ctx.environmentId,
    reason: 'cancel-refused',
    orderId: command.orderId,
    clinicCode: command.clinicCode,
    clinicOrderId: command.clinicOrderId,
    message: error.message,
    field: fieldOf(error),
  };
}

/**
 * The command stays open; a sign-in problem waits for the sign-in, anything else for a backoff (after a 5xx, at
 * least the grace a slow commit needs before its status is checked; with no answer at all, just that grace).
 */
function waitAndRetry(
  ctx: StepContext,
  command: DueCancel,
  error: ServiceError,
  operation: 'cancel' | 'status' = 'cancel',
): void {
  let at: Date | null;
  if (error.kind === 'auth') at = null;
  else if (error.kind === 'in-doubt' && error.reason !== 'server') {
    at = new Date(ctx.now().getTime() + ctx.tuning.reconcileDelayMs);
  } else if (error.kind === 'in-doubt') {
    const failures = trailingFailures(ctx.store.attempts.list(command.orderId), operation);
    const backoff = retryDelayMs(Math.max(0, failures - 1), ctx.tuning, ctx.random, error.retryAfterMs);
    at = new Date(ctx.now().getTime() + Math.max(ctx.tuning.reconcileDelayMs, backoff));
  } else at = scheduleRetry(ctx, command.orderId, operation, error).at;
  // In doubt, or its status check failed: it may have taken effect, so it is not "not sent".
  const what = error.kind === 'in-doubt' || operation === 'status' ? 'cancel not confirmed yet' : 'cancel not sent yet';
  ctx.store.outboxQueue.reschedule(command.orderId, 'cancel_requested', at, {
    kind: error.kind,
    message: clip(`${what}: ${error.message}`),
  });
}
