import { DISPATCHED_STATUSES } from '../../../shared/status.js';
import type { OrderRecord } from '../store/orders-repo.js';
import type { OrderState } from '../store/order-state.js';

/** Which orders the status poller looks at, and which statuses end the watch. */

export const CANCELLED_STATUS = 'Cancelled';

/** Remote statuses after which nothing more is expected from polling one order (dispatch info comes in bulk). */
export const SETTLED_STATUSES: readonly string[] = [...DISPATCHED_STATUSES, CANCELLED_STATUS];

/** Local states in which the service holds the order. */
export const TRACKED_STATES = [
  'created',
  'cancel_requested',
  'cancel_sent',
  'cancel_refused',
] as const satisfies readonly OrderState[];

/**
 * Created (or cancel-related) and not yet dispatched, processed or cancelled remotely. A `cancel_sent` order is
 * always watched: its cancel is confirmed only by the status.
 */
export function isTracked(order: Pick<OrderRecord, 'state' | 'remoteStatus'>): boolean {
  if (order.state === 'cancel_sent') return true;
  if (!(TRACKED_STATES as readonly string[]).includes(order.state)) return false;
  return !SETTLED_STATUSES.includes(order.remoteStatus ?? '');
}

export function isDispatched(remoteStatus: string | null): boolean {
  return DISPATCHED_STATUSES.includes(remoteStatus ?? '');
}
