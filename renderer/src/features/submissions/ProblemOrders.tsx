import { useCallback, useState } from 'react';
import type { EnvironmentView } from '../../../../shared/environment.js';
import type { OrderSummary } from '../../../../shared/order-views.js';
import { useApi } from '../../api/api-context.js';
import { useEvent } from '../../api/use-event.js';
import { useLoad } from '../../api/use-load.js';
import { ErrorMessage } from '../errors/ErrorMessage.js';
import { plural } from '../format/format-time.js';
import { explainOrder, TONE_SYMBOL } from '../orders/order-states.js';
import { StateMark } from '../orders/StateMark.js';

/**
 * Orders a person must look at (rejected, held, a cancel refused, or flagged as not found at the service: the core's
 * `needsAttention`), listed one by one. Orders in doubt settle by themselves: they get one line.
 */
const SHOWN = 200;

/**
 * Orders that need a person, or are waiting to be settled, each with why and the action that fixes it. Reloads
 * when the core says orders changed or the counts move (`countsKey`).
 */
export function ProblemOrders({
  environment,
  countsKey,
  inDoubt,
}: {
  environment: EnvironmentView;
  countsKey: string;
  inDoubt: number;
}) {
  const api = useApi();
  const load = useCallback(
    () =>
      api
        .call('orders.list', { environmentId: environment.id, needsAttention: true, limit: SHOWN })
        // countsKey is part of the request's identity: new counts, new list.
        .then((page) => ({ ...page, countsKey })),
    [api, environment.id, countsKey],
  );
  const { value, error, reload } = useLoad(load);
  useEvent('orders.changed', (change) => {
    if (change.environmentId === environment.id) reload();
  });
  const [retry, setRetry] = useState<{ message?: string; error?: unknown }>({});

  async function retryNow(orders: OrderSummary[]) {
    try {
      const { count } = await api.call('outbox.retryNow', { orderIds: orders.map((order) => order.id) });
      setRetry({ message: `${plural(count, 'order')} will be tried again now.` });
      reload();
    } catch (failure) {
      setRetry({ error: failure });
    }
  }

  async function lookUpInDoubt() {
    try {
      const page = await api.call('orders.list', { environmentId: environment.id, states: ['in_doubt'], limit: 500 });
      if (page.orders.length > 0) await retryNow(page.orders);
    } catch (failure) {
      setRetry({ error: failure });
    }
  }

  const orders = value?.orders ?? [];
  const retryable = orders.filter((order) => Boolean(explainOrder(order)?.button));
  return (
    <section aria-labelledby="problems-heading" className="panel">
      <div className="panel-head">
        <h3 id="problems-heading">Orders that need attention</h3>
        {retryable.length > 1 ? (
          <button type="button" className="secondary" onClick={() => void retryNow(retryable)}>
            Retry all {retryable.length} now
          </button>
        ) : null}
      </div>
      {error ? <ErrorMessage error={error} /> : null}
      {retry.error ? <ErrorMessage error={retry.error} /> : null}
      <p role="status" className="hint">
        {retry.message ?? ''}
      </p>
      {inDoubt > 0 ? (
        <div className="in-doubt">
          <p>
            <span className="tone tone-waiting">
              <span aria-hidden="true">{TONE_SYMBOL.waiting}</span> {plural(inDoubt, 'order')} in doubt
            </span>
            : sent without an answer coming back. Each is looked up at the service before anything is sent again, so
            none is created twice; nothing to do.
          </p>
          <button type="button" className="secondary" onClick={() => void lookUpInDoubt()}>
            Look them up now
          </button>
        </div>
      ) : null}
      {value && orders.length === 0 ? <p>None: nothing is rejected, held, refused or missing at the service.</p> : null}
      {orders.length > 0 ? (
        <ul className="problem-list">
          {orders.map((order) => {
            // A flagged order's state (created, say) is marked beside it, and its reason is the explanation.
            const text = explainOrder(order);
            return (
              <li key={order.id} className="problem" aria-label={`Order ${order.clinicOrderId}`}>
                <p className="problem-head">
                  <StateMark order={order} />{' '}
                  <a href={`#/orders/${order.id}`}>
                    {order.clinicOrderId} <span className="hint">({order.clinicCode})</span>
                  </a>
                </p>
                {text ? (
                  <>
                    <p>{text.explanation}</p>
                    <p className="hint">What fixes it: {text.action}</p>
                    {text.button ? (
                      <button type="button" className="secondary" onClick={() => void retryNow([order])}>
                        {text.button === 'look-up' ? 'Look it up now' : 'Send again now'}
                        <span className="visually-hidden"> ({order.clinicOrderId})</span>
                      </button>
                    ) : null}
                  </>
                ) : null}
              </li>
            );
          })}
        </ul>
      ) : null}
      {value?.nextAfterId ? <p className="hint">Showing the first {SHOWN}; see Orders for all of them.</p> : null}
    </section>
  );
}
