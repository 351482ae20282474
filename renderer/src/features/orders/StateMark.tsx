import type { OrderSummary } from '../../../../shared/order-views.js';
import { NOT_FOUND_LABEL, ORDER_STATE_TEXT, TONE_SYMBOL } from './order-states.js';

/**
 * An order's local state as the lists and the detail view show it, with the "not found at the service" mark beside
 * it while the order is flagged so (which leaves the state as it is: the detail view says why and what to do).
 */
export function StateMark({ order }: { order: Pick<OrderSummary, 'state' | 'notFoundAtService'> }) {
  const state = ORDER_STATE_TEXT[order.state];
  return (
    <>
      <span className={`tone tone-${state.tone}`}>
        <span aria-hidden="true">{TONE_SYMBOL[state.tone]}</span> {state.label}
      </span>
      {order.notFoundAtService ? (
        <>
          {' '}
          <span className="tone tone-attention">
            <span aria-hidden="true">{TONE_SYMBOL.attention}</span> {NOT_FOUND_LABEL}
          </span>
        </>
      ) : null}
    </>
  );
}
