import type { ServiceError } from '../../../shared/errors.js';
import type { StatusRecord } from '../../../shared/status.js';
import type { CallOutcome } from '../service/client.js';
import type { ClaimedOrder } from '../store/orders-repo.js';
import { pharmacyIdIn } from './reconcile.js';
import type { StepContext } from './step.js';

/**
 * Evidence for a create that failed with a 5xx while nothing else was flowing: is the service otherwise up?
 * One `status-with-clinic-code` lookup of the same order answers it. Asked only when the breaker is closed and
 * no other order got an answer since the previous send, so a busy queue (which has its own evidence) pays
 * nothing and an outage (connection failures, or 5xx for everything) never counts against the order.
 */
export interface ServiceCheck {
  startedAt: Date;
  outcome: CallOutcome<StatusRecord[]>;
  /** The lookup answered (a list, or 404): the service works, it only fails this order's create. */
  serviceUp: boolean;
  /** The service lists the order after all: the 5xx was not the whole story, so look it up before resending. */
  found: boolean;
}

export async function checkServiceAfter(
  ctx: StepContext,
  order: ClaimedOrder,
  error: ServiceError,
  sentAt: Date,
): Promise<ServiceCheck | null> {
  const isHttp5xx = error.kind === 'retryable' && error.reason === 'server' && (error.status ?? 0) >= 500;
  if (!isHttp5xx || !ctx.breakerClosed()) return null;
  // This send is not recorded yet: the latest create in the history is the previous one.
  const previous = ctx.store.attempts.list(order.id).findLast((attempt) => attempt.operation === 'create');
  if (ctx.othersAnsweredSince(order.id, previous ? Date.parse(previous.startedAt) : sentAt.getTime())) return null;
  const startedAt = ctx.now();
  const outcome = await ctx.client.statusWithClinicCode({
    clinicCode: order.clinicCode,
    clinicOrderId: order.clinicOrderId,
  });
  if (outcome.ok) {
    const found = pharmacyIdIn(outcome.value, order.clinicOrderId) !== null || outcome.value.length > 0;
    return { startedAt, outcome, serviceUp: !found, found };
  }
  const notFound = outcome.error.kind === 'rejected' && outcome.error.status === 404;
  return { startedAt, outcome, serviceUp: notFound, found: false };
}
