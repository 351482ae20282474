import type { OrderSummary } from '../../../../shared/order-views.js';
import { LISTED_DIFFERENTLY_LABEL, NOT_FOUND_LABEL, ORDER_STATE_TEXT, TONE_SYMBOL } from './order-states.js';

/**
 * An order's local state as the lists and the detail view show it, with the "not found at the service" or "listed
 * differently" mark beside it while the order is flagged or noted so (which leaves the state as it is: the detail
 * view says why and what to do). The two never come together.
 */
export function StateMark({
  order,
}: {
  order: Pick<OrderSummary, 'state' | 'notFoundAtService' | 'listedDifferently'>;
}) {
  const state = ORDER_STATE_TEXT[order.state];
  const mark = order.notFoundAtService ? NOT_FOUND_LABEL : order.listedDifferently ? LISTED_DIFFERENTLY_LABEL : null;
  return (
    <>
      <span className={`tone tone-${state.tone}`}>
        <span aria-hidden="true">{TONE_SYMBOL[state.tone]}</span> {state.label}
      </span>
      {mark ? (
        <>
          {' '}
          <span className="tone tone-attention">
            <span aria-hidden="true">{TONE_SYMBOL.attention}</span> {mark}
          </span>
        </>
      ) : null}
    </>
  );
}
