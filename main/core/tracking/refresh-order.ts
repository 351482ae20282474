import type { OrderServiceClient } from '../service/client.js';
import { saysNoSuchOrder } from '../service/no-such-order.js';
import type { Store } from '../store/store.js';
import { applyStatusRecord, ownRecord } from './apply-status.js';
import { listedDifferently, noteListedDifferently } from './listed-differently.js';
import { noteFound, noteNotFound } from './lost-at-service.js';
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
 * the "not found at the service" flag and a "listed differently" note are told to `onServiceNote`, as the poller
 * tells its own.
 */
export async function refreshOrder(
  store: Store,
  client: OrderServiceClient,
  orderId: number,
  now: () => Date,
  onServiceNote?: (environmentId: string, orderId: number) => void,
): Promise<OrderRefresh> {
  const order = store.orders.get(orderId);
  if (!order || order.pharmacyOrderId === null) return { checked: 0, changed: [], stoppedBy: null };
  const outcome = await client.statusWithClinicCode({ clinicCode: order.clinicCode, orderId: order.pharmacyOrderId });
  // Counted like the poller's lookups (lost-at-service.ts), for the orders it watches: a miss here is as much the
  // service's word. A settled order the service no longer lists (its own retention) is no one's concern.
  const missed = () => {
    const flagged = isTracked(order) && noteNotFound(store, order, now());
    if (flagged) onServiceNote?.(order.environmentId, order.id);
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
  const record = ownRecord(outcome.value, order);
  if (!record) {
    // Listed under ids that may not be its own: not taken, and no miss either (listed-differently.ts).
    const listed = isTracked(order) ? listedDifferently(outcome.value, order) : undefined;
    const noted = listed ? noteListedDifferently(store, order, listed) : missed();
    if (listed && noted) onServiceNote?.(order.environmentId, order.id);
    return { checked: 1, changed: noted ? [orderId] : [], stoppedBy: null };
  }
  const cleared = noteFound(store, order);
  const applied = applyStatusRecord(store, orderId, record, now());
  return {
    checked: 1,
    changed: cleared || (applied && (applied.changed || applied.stateChanged)) ? [orderId] : [],
    stoppedBy: null,
  };
}
