import { useCallback, useEffect, useId, useRef, useState, type FormEvent } from 'react';
import type { CallOutput } from '../../../../shared/contract.js';
import type { OrderDetail, OrderSummary } from '../../../../shared/order-views.js';
import { DISPATCHED_STATUSES } from '../../../../shared/status.js';
import { useApi } from '../../api/api-context.js';
import { useEvent } from '../../api/use-event.js';
import { ErrorMessage } from '../errors/ErrorMessage.js';
import { useFocusWhenLost } from '../focus/focus-return.js';
import { formatTime } from '../format/format-date.js';
import { plural } from '../format/format-time.js';
import { canCancel } from './cancellable.js';
import { cancelOutcome, plainCancelRefusal } from './cancel-words.js';
import { ORDER_STATE_TEXT, TONE_SYMBOL } from './order-states.js';

type CancelResult = CallOutput<'orders.cancel'>['results'][number];

/** Orders checked with the service before a cancel is offered, and followed after it: a handful, one request each. */
const CHECKED_AT_MOST = 20;

interface Props {
  orders: OrderSummary[];
  onClose: () => void;
}

/** The service was asked about the orders just now, or could not be (and the statuses shown are as last seen). */
type Check =
  | { phase: 'checking' }
  | { phase: 'checked'; at: string }
  | { phase: 'not-checked'; why: string }
  | { phase: 'skipped' };

/** A handful of orders at the service: checked there before a cancel is offered. */
function checkable(orders: OrderSummary[]): boolean {
  const sent = orders.filter(atService).length;
  return sent > 0 && sent <= CHECKED_AT_MOST;
}

/** Whether the service holds the order, so its status there decides the cancel. */
const atService = (order: OrderSummary) =>
  order.pharmacyOrderId !== null && (order.state === 'created' || order.state === 'cancel_refused');

/** Why the pharmacy refused the last cancel, from the order's record. */
function refusalOf(detail: OrderDetail): string | null {
  const refused = detail.cancellations.findLast((cancellation) => cancellation.state === 'refused');
  return refused?.resultMessage ?? detail.order.lastError?.message ?? null;
}

/**
 * Cancel one or many orders with a reason (sent to the pharmacy, kept with the order). Works offline: unsent
 * orders are withdrawn at once, the rest wait in the outbox. Before it offers to cancel, the orders at the service
 * are checked there again (a status read a minute ago may be stale: dispatched since); after, each order's outcome
 * follows the order itself (requested, sent, cancelled or refused, with why), never the request's first answer.
 */
export function CancelDialog({ orders: given, onClose }: Props) {
  const api = useApi();
  const dialogRef = useRef<HTMLDialogElement>(null);
  const reasonId = useId();
  const headingId = useId();
  const [orders, setOrders] = useState(given);
  const [check, setCheck] = useState<Check>(() => ({ phase: checkable(given) ? 'checking' : 'skipped' }));
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [results, setResults] = useState<CancelResult[]>();
  /** Each followed order's record now (after the request). */
  const [now, setNow] = useState<ReadonlyMap<number, OrderDetail>>(new Map());
  const [failure, setFailure] = useState<unknown>();

  // Modal (focus stays inside, Escape closes). Unmounting removes it, which also ends the modal state.
  useEffect(() => {
    const dialog = dialogRef.current;
    if (dialog && !dialog.open) dialog.showModal();
  }, []);

  // Checked with the service again before a cancel is offered (statuses on screen may be minutes old).
  useEffect(() => {
    if (!checkable(given)) return;
    const sent = given.filter(atService);
    let live = true;
    void (async () => {
      try {
        const rounds = await Promise.all(
          sent.map((order) => api.call('orders.refresh', { environmentId: order.environmentId, orderId: order.id })),
        );
        const details = await Promise.all(given.map((order) => api.call('orders.get', { orderId: order.id })));
        if (!live) return;
        setOrders(details.map((detail) => detail.order));
        const stopped = rounds.find((round) => round.stoppedBy !== null)?.stoppedBy;
        setCheck(
          stopped
            ? {
                phase: 'not-checked',
                why: stopped === 'sign-in-required' ? 'sign-in is needed' : 'the service is not answering',
              }
            : { phase: 'checked', at: rounds[0]!.at },
        );
      } catch {
        if (live) setCheck({ phase: 'not-checked', why: 'the check failed' });
      }
    })();
    return () => {
      live = false;
    };
  }, [api, given]);

  const byId = new Map(orders.map((order) => [order.id, order]));
  const followed = results
    ?.filter((result) => result.outcome === 'cancel-requested')
    .slice(0, CHECKED_AT_MOST)
    .map((result) => result.orderId);

  const follow = useCallback(
    async (ids: number[]) => {
      const details = await Promise.all(ids.map((orderId) => api.call('orders.get', { orderId })));
      setNow((current) => {
        const next = new Map(current);
        for (const detail of details) next.set(detail.order.id, detail);
        return next;
      });
    },
    [api],
  );
  // Read once the answer is in (the outbox may already have moved them: see submit), then on every change of theirs.
  useEvent('orders.changed', (change) => {
    const ids = change.orderIds.filter((id) => followed?.includes(id));
    if (ids.length > 0) follow(ids).catch(() => {});
  });
  // The outbox moves them on as it sends (sent, refused) and says so only through its progress.
  useEvent('outbox.progress', (progress) => {
    const ids = (followed ?? []).filter(
      (id) => !isFinal(now.get(id)) && byId.get(id)?.environmentId === progress.environmentId,
    );
    if (ids.length > 0) follow(ids).catch(() => {});
  });

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!reason.trim()) return;
    setBusy(true);
    setFailure(undefined);
    try {
      const answer = await api.call('orders.cancel', {
        orderIds: orders.map((order) => order.id),
        reason: reason.trim(),
      });
      setResults(answer.results);
      const requested = answer.results
        .filter((result) => result.outcome === 'cancel-requested')
        .slice(0, CHECKED_AT_MOST)
        .map((result) => result.orderId);
      if (requested.length > 0) follow(requested).catch(() => {});
    } catch (error) {
      setFailure(error);
    }
    setBusy(false);
  }

  const what = plural(orders.length, 'order');
  const gone = orders.filter((order) => !canCancel(order));
  // Not one of them can be cancelled now: say so and offer only Close, not a reason to type for a cancel that
  // cannot happen.
  const noneCancellable = check.phase !== 'checking' && gone.length === orders.length;
  const closeRef = useRef<HTMLButtonElement>(null);
  useFocusWhenLost(noneCancellable, () => closeRef.current);
  // The results replace the form whose button had the keyboard: it goes to their Close, beside what they say.
  const resultsCloseRef = useRef<HTMLButtonElement>(null);
  useFocusWhenLost(results, () => resultsCloseRef.current);
  const open = results ? results.filter((r) => r.outcome === 'cancel-requested' && !isFinal(now.get(r.orderId))) : [];
  return (
    <dialog ref={dialogRef} aria-labelledby={headingId} className="dialog" onClose={onClose}>
      <h3 id={headingId}>Cancel {what}</h3>
      {results ? (
        <>
          <ul className="cancel-results" aria-label="Cancel results">
            {results.map((result) => {
              const detail = now.get(result.orderId);
              const outcome =
                result.outcome === 'withdrawn'
                  ? cancelOutcome('withdrawn', null)
                  : result.outcome === 'refused'
                    ? cancelOutcome('created', result.reason)
                    : cancelOutcome(detail?.order.state ?? 'cancel_requested', detail ? refusalOf(detail) : null);
              return (
                <li key={result.orderId}>
                  <strong>
                    {result.clinicOrderId ?? byId.get(result.orderId)?.clinicOrderId ?? `Order ${result.orderId}`}
                  </strong>
                  :{' '}
                  <span className={`tone tone-${outcome.tone}`}>
                    <span aria-hidden="true">{TONE_SYMBOL[outcome.tone]}</span> {outcome.label}
                  </span>
                  : {outcome.detail}
                </li>
              );
            })}
          </ul>
          <p role="status" className="hint">
            {open.length > 0
              ? `Following ${plural(open.length, 'cancel')} until the pharmacy answers; you can close this, the Orders list keeps following.`
              : 'Every outcome is final.'}
          </p>
          <div className="dialog-buttons">
            <button type="button" ref={resultsCloseRef} onClick={onClose}>
              Close
            </button>
          </div>
        </>
      ) : (
        <form onSubmit={(event) => void submit(event)} className="stack">
          <p>
            {orders.length === 1
              ? `Order ${orders[0]!.clinicOrderId} of ${orders[0]!.clinicCode}.`
              : `${what}, from ${orders[0]!.clinicOrderId} to ${orders.at(-1)!.clinicOrderId}.`}{' '}
            Orders not sent yet are withdrawn at once; sent ones get a cancel request the pharmacy may refuse (after
            dispatch it always does).
          </p>
          <CheckLine check={check} orders={orders} />
          {gone.length > 0 && check.phase !== 'checking' ? (
            <ul className="cancel-gone" aria-label="Orders that cannot be cancelled now">
              {gone.map((order) => (
                <li key={order.id}>
                  <strong>{order.clinicOrderId}</strong>: {whyNot(order)}
                </li>
              ))}
            </ul>
          ) : null}
          {noneCancellable ? (
            <>
              <p role="status">
                {orders.length === 1 ? 'This order cannot' : 'None of these orders can'} be cancelled now; nothing was
                sent to the pharmacy.
              </p>
              <div className="dialog-buttons">
                <button type="button" ref={closeRef} onClick={onClose}>
                  Close
                </button>
              </div>
            </>
          ) : (
            <CancelFields
              reasonId={reasonId}
              reason={reason}
              onReason={setReason}
              failure={failure}
              submitDisabled={busy || check.phase === 'checking' || !reason.trim()}
              submitLabel={busy ? 'Cancelling…' : `Cancel ${what}`}
              keepLabel={`Keep ${orders.length === 1 ? 'it' : 'them'}`}
              onKeep={onClose}
            />
          )}
        </form>
      )}
    </dialog>
  );
}

/** The reason to send and the buttons, when at least one of the orders can be cancelled. */
function CancelFields(props: {
  reasonId: string;
  reason: string;
  onReason: (reason: string) => void;
  failure: unknown;
  submitDisabled: boolean;
  submitLabel: string;
  keepLabel: string;
  onKeep: () => void;
}) {
  const { reasonId, reason, onReason, failure } = props;
  return (
    <>
      <div className="field">
        <label htmlFor={reasonId}>Reason for cancelling</label>
        <textarea
          id={reasonId}
          value={reason}
          onChange={(event) => onReason(event.target.value)}
          required
          maxLength={500}
          rows={3}
        />
        <p className="hint">Sent to the pharmacy with the cancel. Avoid patient details.</p>
      </div>
      {failure ? <ErrorMessage error={failure} /> : null}
      <div className="dialog-buttons">
        <button type="submit" disabled={props.submitDisabled}>
          {props.submitLabel}
        </button>
        <button type="button" className="secondary" onClick={props.onKeep}>
          {props.keepLabel}
        </button>
      </div>
    </>
  );
}

/** Why an order on the list cannot be cancelled now, before anyone asks. */
function whyNot(order: OrderSummary): string {
  if (order.remoteStatus && DISPATCHED_STATUSES.includes(order.remoteStatus)) {
    return plainCancelRefusal(`the service shows it as "${order.remoteStatus}"`);
  }
  if (order.remoteStatus === 'Cancelled') return 'It was already cancelled.';
  const state = ORDER_STATE_TEXT[order.state];
  return `${state.label}: ${state.meaning}`;
}

function isFinal(detail: OrderDetail | undefined): boolean {
  return detail !== undefined && cancelOutcome(detail.order.state, null).final;
}

/** How fresh the statuses in the dialog are. */
function CheckLine({ check, orders }: { check: Check; orders: OrderSummary[] }) {
  const sent = orders.filter(atService);
  let text = '';
  if (check.phase === 'checking') text = `Checking ${plural(sent.length, 'order')} with the service…`;
  else if (check.phase === 'checked') text = `Statuses checked with the service at ${formatTime(check.at)}.`;
  else if (sent.length > 0) {
    const seen = sent
      .map((order) => order.remoteStatusAt)
      .filter((at): at is string => at !== null)
      .sort()[0];
    const since = seen ? `; the oldest status shown was seen at ${formatTime(seen)}` : '';
    text =
      check.phase === 'not-checked'
        ? `Could not check with the service now (${check.why})${since}. The pharmacy refuses a cancel once an order is dispatched.`
        : `Statuses as last seen${since}. The pharmacy refuses a cancel once an order is dispatched.`;
  }
  return (
    <p role="status" className="hint">
      {text}
    </p>
  );
}
