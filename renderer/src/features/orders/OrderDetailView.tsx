import { useCallback, useEffect, useRef, useState } from 'react';
import type { CallOutput } from '../../../../shared/contract.js';
import type { OrderDetail } from '../../../../shared/order-views.js';
import { useApi } from '../../api/api-context.js';
import { useEvent } from '../../api/use-event.js';
import { useLoad } from '../../api/use-load.js';
import { ErrorMessage } from '../errors/ErrorMessage.js';
import { formatDate, formatDateTime } from '../format/format-date.js';
import { formatRemaining } from '../format/format-time.js';
import { useNow } from '../format/use-now.js';
import { canCancel } from './cancellable.js';
import { nextAttemptText } from './next-attempt.js';
import { explainOrder, ORDER_STATE_TEXT } from './order-states.js';
import { OrderTimeline } from './OrderTimeline.js';
import { StateMark } from './StateMark.js';
import { TrackingId } from './TrackingId.js';

export type RefreshRound = CallOutput<'orders.refresh'>;

interface Props {
  orderId: number;
  lastRefresh: RefreshRound | undefined;
  refreshing: boolean;
  onRefresh: () => void;
  onCancel: (detail: OrderDetail) => void;
  /** The environment's status interval: how soon the poller reads a new or changed order. */
  pollIntervalMs: number;
  /** Escape, or the Close link: back to the list. */
  onClose: () => void;
}

function refreshText(round: RefreshRound): string {
  if (round.stoppedBy === 'service-unavailable')
    return 'The service did not answer; the statuses shown are the last known.';
  if (round.stoppedBy === 'sign-in-required') return 'Sign-in required to check statuses.';
  if (round.checked === 0) return 'Nothing to check: the service has no id for this order yet.';
  return round.changed > 0 ? 'Checked with the service: the status changed.' : 'Checked with the service: no change.';
}

/**
 * One order from this computer's records (so it reads the same offline): what it is now, why, what can be done,
 * its items and its whole timeline.
 */
export function OrderDetailView({
  orderId,
  lastRefresh,
  refreshing,
  onRefresh,
  onCancel,
  pollIntervalMs,
  onClose,
}: Props) {
  const api = useApi();
  const load = useCallback(() => api.call('orders.get', { orderId }), [api, orderId]);
  const { value: detail, error, reload } = useLoad(load);
  useEvent('orders.changed', (change) => {
    if (change.orderIds.includes(orderId)) reload();
  });
  useEvent('outbox.progress', (progress) => {
    // Cheap to read again while this order is still on its way.
    if (
      detail &&
      progress.environmentId === detail.order.environmentId &&
      ['queued', 'sending', 'in_doubt', 'cancel_requested'].includes(detail.order.state)
    )
      reload();
  });
  const [retry, setRetry] = useState<{ message?: string; error?: unknown }>({});
  // Once loaded, the order is where the admin looks: in view, and the keyboard there (Tab goes on into it).
  const headingRef = useRef<HTMLHeadingElement>(null);
  const loaded = detail !== undefined;
  useEffect(() => {
    if (!loaded) return;
    const heading = headingRef.current;
    heading?.focus({ preventScroll: true });
    heading?.scrollIntoView({ block: 'nearest' });
  }, [loaded]);

  // The Attempts line says "due" once the planned time has passed, so it is read against a clock that moves.
  const now = useNow(30_000);
  if (error && !detail) {
    return (
      <div className="stack">
        <ErrorMessage error={error} />
        <p>
          <a href="#/orders">Back to the list</a>
        </p>
      </div>
    );
  }
  if (!detail) return <p role="status">Loading the order…</p>;
  const { order } = detail;
  const state = ORDER_STATE_TEXT[order.state];
  const problem = explainOrder(order);
  const nextAttempt = order.nextAttemptAt ? nextAttemptText(order.nextAttemptAt, now) : '';

  async function retryNow() {
    try {
      const { count } = await api.call('outbox.retryNow', { orderIds: [orderId] });
      setRetry({ message: count ? 'It will be tried again now.' : 'Nothing to retry for this order now.' });
      reload();
    } catch (failure) {
      setRetry({ error: failure });
    }
  }

  return (
    <section
      aria-labelledby="order-heading"
      className="panel order-detail"
      onKeyDown={(event) => {
        // A dialog open above (the cancel) takes its own Escape.
        if (event.key === 'Escape' && !event.defaultPrevented && !(event.target as Element).closest('dialog')) {
          event.preventDefault();
          onClose();
        }
      }}
    >
      <div className="panel-head">
        <h3 id="order-heading" ref={headingRef} tabIndex={-1}>
          Order {order.clinicOrderId}
        </h3>
        <a
          href="#/orders"
          className="inline-link"
          aria-keyshortcuts="Escape"
          onClick={(event) => {
            event.preventDefault();
            onClose();
          }}
        >
          Close
        </a>
      </div>
      <dl className="report">
        <dt>Clinic</dt>
        <dd>{order.clinicCode}</dd>
        <dt>Local state</dt>
        <dd>
          <StateMark order={order} />
          <span className="hint">{state.meaning}</span>
        </dd>
        <dt>Pharmacy order id</dt>
        <dd>{order.pharmacyOrderId ?? 'Not created yet'}</dd>
        <dt>Remote status</dt>
        {/* Created but not yet read back: said, so a blank is not taken for "nothing has happened to it". */}
        <dd>
          {order.remoteStatus ??
            (order.pharmacyOrderId !== null
              ? `Not read from the service yet: read within ${formatRemaining(pollIntervalMs).words}, or now with “Check statuses now”`
              : '—')}
        </dd>
        <dt>Dispatch date</dt>
        <dd>{formatDate(order.dispatchDate)}</dd>
        <dt>Tracking id</dt>
        <dd>
          <TrackingId trackingId={order.trackingId} courierCode={order.courierCode} />
        </dd>
        <dt>Attempts</dt>
        <dd>
          {order.attempts}
          {nextAttempt ? ` (${nextAttempt})` : ''}
        </dd>
      </dl>
      <p className="hint">
        From this computer&apos;s records, readable offline. Last status change seen:{' '}
        {formatDateTime(order.remoteStatusAt)}.{' '}
        {lastRefresh
          ? `Statuses last checked with the service: ${formatDateTime(lastRefresh.at)}.`
          : // When, in numbers: "in the background" alone read as never to an admin watching "Not read yet".
            `Statuses are checked with the service automatically: within ${formatRemaining(pollIntervalMs).words} of a change, less often while nothing changes.`}
      </p>
      <div className="button-row">
        <button type="button" className="secondary" onClick={onRefresh} disabled={refreshing}>
          {refreshing ? 'Checking…' : 'Check statuses now'}
        </button>
        {canCancel(order) ? (
          <button type="button" className="secondary" onClick={() => onCancel(detail)}>
            Cancel this order…
          </button>
        ) : null}
        {problem?.button ? (
          <button type="button" className="secondary" onClick={() => void retryNow()}>
            {problem.button === 'look-up' ? 'Look it up now' : 'Send again now'}
          </button>
        ) : null}
      </div>
      <p role="status" className="hint">
        {lastRefresh && !refreshing ? refreshText(lastRefresh) : ''} {retry.message ?? ''}
      </p>
      {retry.error ? <ErrorMessage error={retry.error} /> : null}
      {problem ? (
        <div className="message">
          <p>{problem.explanation}</p>
          <p className="hint">What fixes it: {problem.action}</p>
        </div>
      ) : null}
      {detail.items.length > 0 ? (
        <table>
          <caption>Items</caption>
          <thead>
            <tr>
              <th scope="col">Medication</th>
              <th scope="col">dm+d code</th>
              <th scope="col" className="number">
                Quantity
              </th>
            </tr>
          </thead>
          <tbody>
            {detail.items.map((item, index) => (
              <tr key={`${item.dmdCode}-${index}`}>
                <th scope="row">{item.medication}</th>
                <td>
                  <code className="dmd">{item.dmdCode}</code>
                </td>
                <td className="number">{item.quantity}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <OrderTimeline detail={detail} />
    </section>
  );
}
