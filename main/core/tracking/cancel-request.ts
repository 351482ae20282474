import { cancelRequestSchema } from '../../../shared/orders.js';
import type { AuditActor } from '../model/audit-entry.js';
import type { OrderRecord } from '../store/orders-repo.js';
import type { OrderState } from '../store/order-state.js';
import type { Store } from '../store/store.js';
import { mayHaveActed } from '../store/attempt-acted.js';
import { CANCELLED_STATUS, isDispatched } from './tracked-orders.js';

export type CancelOutcome =
  /** Never sent: removed from the outbox here and now. */
  | 'withdrawn'
  /** At the service: a cancel command waits in the outbox (sent by the submitter, confirmed by status). */
  | 'cancel-requested'
  /** Nothing changed; `reason` says why. */
  | 'refused';

export interface CancelResult {
  orderId: number;
  clinicOrderId: string | null;
  outcome: CancelOutcome;
  reason?: string;
}

/** States in which nothing exists at the service yet, so the order can simply be withdrawn. */
const UNSENT: readonly OrderState[] = ['ready', 'queued', 'held', 'rejected'];
/** States in which the service holds the order and a cancel command can be queued. */
const CANCELLABLE: readonly OrderState[] = ['created', 'cancel_refused'];

const REFUSALS: Partial<Record<OrderState, string>> = {
  sending: 'it is being sent right now; cancel it once it shows as created',
  in_doubt:
    'its last send got no answer, so whether the service has it is not known yet; cancel it once it shows as created',
  cancel_requested: 'a cancel request for it is already waiting to be sent',
  cancel_sent: 'a cancel request for it was already sent; the service has not confirmed it yet',
  cancelled: 'it is already cancelled',
  withdrawn: 'it was already withdrawn',
};

/** The cancel reason the service will receive (the shared schema's rule: 1–500 characters after trimming). */
export function checkCancelReason(reason: string): string {
  const parsed = cancelRequestSchema.shape.cancelReason.safeParse(reason);
  if (!parsed.success) throw new RangeError('the cancel reason must be 1 to 500 characters');
  return parsed.data;
}

/**
 * Asks for orders to be cancelled. Nothing is sent here, so this works offline:
 * - not yet sent (ready, queued, held, rejected) → `withdrawn` locally, unless a send of it may have reached the
 *   service (its pharmacy order id known, a send once in doubt): then refused, saying so (`mayBeAtTheService`);
 * - created (or a cancel refused earlier) and not dispatched → `cancel_requested` plus an open cancellation,
 *   which the submitter sends with the clinic code and the reason;
 * - sending or in doubt → refused: whether the service has the order is not known yet, and a withdrawal could
 *   leave an order the admin believes cancelled at the pharmacy; asking again once it shows as created works;
 * - dispatched, processed or already cancelled at the service → refused with the reason (the pharmacy would
 *   refuse it anyway).
 * Every outcome, refusals included, is an audit entry; the admin's reason text is not (it may name a patient):
 * it is kept only in the cancellation row the service will receive.
 */
export function requestCancel(
  store: Store,
  orderIds: readonly number[],
  reason: string,
  options: { actor?: AuditActor } = {},
): CancelResult[] {
  const cancelReason = checkCancelReason(reason);
  const actor = options.actor ?? 'user';
  return [...new Set(orderIds)].map((orderId) =>
    store.inTransaction(() => cancelOne(store, orderId, cancelReason, actor)),
  );
}

function cancelOne(store: Store, orderId: number, reason: string, actor: AuditActor): CancelResult {
  const order = store.orders.get(orderId);
  if (!order) return { orderId, clinicOrderId: null, outcome: 'refused', reason: `there is no order ${orderId}` };
  const result = (outcome: CancelOutcome, why?: string): CancelResult => ({
    orderId,
    clinicOrderId: order.clinicOrderId,
    outcome,
    ...(why ? { reason: why } : {}),
  });

  const reached = UNSENT.includes(order.state) ? mayBeAtTheService(store, order) : undefined;
  if (reached) {
    decline(store, order, actor, reached);
    return result('refused', reached);
  }
  if (UNSENT.includes(order.state)) {
    store.orders.transition(orderId, [order.state], 'withdrawn', {}, { actor, action: 'order.withdrawn' });
    return result('withdrawn');
  }
  const refusal = refusalFor(order);
  if (refusal) {
    decline(store, order, actor, refusal);
    return result('refused', refusal);
  }
  store.orders.transition(orderId, [order.state], 'cancel_requested', {}, { actor, action: 'order.cancel-requested' });
  store.cancellations.request(orderId, reason);
  return result('cancel-requested');
}

/**
 * Why an order held or rejected (or queued again) may be at the service after all, so withdrawing it would say "never
 * sent" of an order the pharmacy may hold: the service gave its pharmacy order id, a send of it was once in doubt,
 * or a create got no answer or a 5xx. Undefined when no send of it can have reached the service.
 */
function mayBeAtTheService(store: Store, order: OrderRecord): string | undefined {
  const check = 'check at the service, then cancel it there or once it shows here as created';
  if (order.pharmacyOrderId !== null) {
    return `the service has it (pharmacy order id ${order.pharmacyOrderId}), though it is ${order.state} here: ${check}`;
  }
  const inDoubt =
    store.outboxQueue.retryMemory(order.id)?.wasInDoubt === true ||
    store.attempts.list(order.id).some((attempt) => attempt.operation === 'create' && mayHaveActed(attempt));
  if (!inDoubt) return undefined;
  return `a send of it got no answer (or a server error), so the service may have it though it is ${order.state} here: ${check}`;
}

function refusalFor(order: OrderRecord): string | undefined {
  const byState = REFUSALS[order.state];
  if (byState) return byState;
  if (!CANCELLABLE.includes(order.state)) return `an order in state "${order.state}" cannot be cancelled`;
  if (isDispatched(order.remoteStatus)) {
    return `the service shows it as "${order.remoteStatus}": only orders not yet dispatched can be cancelled`;
  }
  if (order.remoteStatus === CANCELLED_STATUS) return 'the service shows it as already cancelled';
  return undefined;
}

function decline(store: Store, order: OrderRecord, actor: AuditActor, why: string): void {
  store.audit.append({
    actor,
    action: 'order.cancel-declined',
    environmentId: order.environmentId,
    batchId: order.batchId,
    orderId: order.id,
    clinicCode: order.clinicCode,
    clinicOrderId: order.clinicOrderId,
    details: {
      fromState: order.state,
      errorMessage: why,
      ...(order.remoteStatus ? { remoteStatus: order.remoteStatus.slice(0, 100) } : {}),
    },
  });
}
