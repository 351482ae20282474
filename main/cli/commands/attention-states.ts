import type { OrderState } from '../../core/store/order-state.js';
import type { Store } from '../../core/store/store.js';

/** Orders a person has to look at: refused by the service, held (locked out, set aside), or a refused cancel. */
export const ATTENTION_STATES: readonly OrderState[] = ['rejected', 'held', 'cancel_refused'];

export function ordersNeedingAttention(store: Store, environmentId?: string): number {
  const counts = store.orders.countByState(environmentId);
  return ATTENTION_STATES.reduce((sum, state) => sum + counts[state], 0);
}
