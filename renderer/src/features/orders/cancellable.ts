import type { OrderSummary } from '../../../../shared/order-views.js';
import { DISPATCHED_STATUSES } from '../../../../shared/status.js';

/**
 * Whether a cancel can be asked for now (the core decides for good and says why when it cannot): unsent orders
 * are withdrawn; created ones can be cancelled until dispatch.
 */
export function canCancel(order: Pick<OrderSummary, 'state' | 'remoteStatus'>): boolean {
  if (['ready', 'queued', 'held', 'rejected'].includes(order.state)) return true;
  if (order.state !== 'created' && order.state !== 'cancel_refused') return false;
  return !DISPATCHED_STATUSES.includes(order.remoteStatus ?? '') && order.remoteStatus !== 'Cancelled';
}
