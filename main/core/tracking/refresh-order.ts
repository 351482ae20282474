import type { OrderServiceClient } from '../service/client.js';
import type { Store } from '../store/store.js';
import { applyStatusRecord, describes } from './apply-status.js';
import { noteFound, noteNotFound, saysNoSuchOrder } from './lost-at-service.js';
import { isTracked } from './tracked-orders.js';

export interface OrderRefresh {
  checked: number;
  /** Ids of orders whose status, dispatch information or state changed. */
  changed: number[];
  stoppedBy: 'sign-in-required' | 'service-unavailable' | null;
}

/**
 * Looks one order up now (the detail view's "check statuses now"), the way the poller would, without waiting
 * for the environment's whole round: one `status-with-clinic-code` call, recorded like any poll. A miss that raises
 * the "not found at the service" flag is told to `onLostAtService`, as the poller tells its own.
 */
export async function refreshOrder(
  store: Store,
  client: OrderServiceClient,
  orderId: number,
  now: () => Date,
  onLostAtService?: (environmentId: string, orderId: number) => void,
): Promise<OrderRefresh> {
  const order = store.orders.get(orderId);
  if (!order || order.pharmacyOrderId === null) return { checked: 0, changed: [], stoppedBy: null };
  const outcome = await client.statusWithClinicCode({ clinicCode: order.clinicCode, orderId: order.pharmacyOrderId });
  // Counted like the poller's lookups (lost-at-service.ts), for the orders it watches: a miss here is as much the
  // service's word. A settled order the service no longer lists (its own retention) is no one's concern.
  const missed = () => {
    const flagged = isTracked(order) && noteNotFound(store, order, now());
    if (flagged) onLostAtService?.(order.environmentId, order.id);
    return flagged;
  };
  if (!outcome.ok) {
    if (outcome.error.kind === 'auth') return { checked: 0, changed: [], stoppedBy: 'sign-in-required' };
    if (outcome.error.kind === 'rejected') {
      const flagged = saysNoSuchOrder(outcome.error) && missed();
      return { checked: 0, changed: flagged ? [orderId] : [], stoppedBy: null };
    }
    return { checked: 0, changed: [], stoppedBy: 'service-unavailable' };
  }
  const pharmacyId = String(order.pharmacyOrderId);
  const record = outcome.value.find(
    (candidate) => candidate.pharmacyOrderId === pharmacyId && describes(candidate, order),
  );
  if (!record) return { checked: 1, changed: missed() ? [orderId] : [], stoppedBy: null };
  const cleared = noteFound(store, order);
  const applied = applyStatusRecord(store, orderId, record, now());
  return {
    checked: 1,
    changed: cleared || (applied && (applied.changed || applied.stateChanged)) ? [orderId] : [],
    stoppedBy: null,
  };
}
