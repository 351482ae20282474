import { ATTENTION_STATES } from '../../core/store/order-state.js';
import type { Store } from '../../core/store/store.js';

/** Orders a person has to look at: refused by the service, held (locked out, set aside), or a refused cancel. */
export { ATTENTION_STATES };

/** Those and the orders flagged as not found at the service, whatever their state (as `status` counts them). */
export function ordersNeedingAttention(store: Store, environmentId: string): number {
  return store.orders.countNeedingAttention(environmentId);
}
