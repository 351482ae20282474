import type { OrderServiceClient } from '../service/client.js';
import type { Store } from '../store/store.js';
import { applyStatusRecord, describes } from './apply-status.js';

export interface OrderRefresh {
  checked: number;
  /** Ids of orders whose status, dispatch information or state changed. */
  changed: number[];
  stoppedBy: 'sign-in-required' | 'service-unavailable' | null;
}

/**
 * Looks one order up now (the detail view's "check statuses now"), the way the poller would, without waiting
 * for the environment's whole round: one `status-with-clinic-code` call, recorded like any poll.
 */
export async function refreshOrder(
  store: Store,
  client: OrderServiceClient,
  orderId: number,
  now: () => Date,
): Promise<OrderRefresh> {
  const order = store.orders.get(orderId);
  if (!order || order.pharmacyOrderId === null) return { checked: 0, changed: [], stoppedBy: null };
  const outcome = await client.statusWithClinicCode({ clinicCode: order.clinicCode, orderId: order.pharmacyOrderId });
  if (!outcome.ok) {
    if (outcome.error.kind === 'auth') return { checked: 0, changed: [], stoppedBy: 'sign-in-required' };
    if (outcome.error.kind === 'rejected') return { checked: 0, changed: [], stoppedBy: null };
    return { checked: 0, changed: [], stoppedBy: 'service-unavailable' };
  }
  const pharmacyId = String(order.pharmacyOrderId);
  const record = outcome.value.find(
    (candidate) => candidate.pharmacyOrderId === pharmacyId && describes(candidate, order),
  );
  if (!record) return { checked: 1, changed: [], stoppedBy: null };
  const applied = applyStatusRecord(store, orderId, record, now());
  return {
    checked: 1,
    changed: applied && (applied.changed || applied.stateChanged) ? [orderId] : [],
    stoppedBy: null,
  };
}
