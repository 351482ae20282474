import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import type { CallOutput } from '../../../../shared/contract.js';
import type { OrderSummary } from '../../../../shared/outbox-views.js';
import { useApi } from '../../api/api-context.js';
import { ErrorMessage } from '../errors/ErrorMessage.js';
import { plural } from '../format/format-time.js';

type CancelResult = CallOutput<'orders.cancel'>['results'][number];

const OUTCOME_TEXT: Record<CancelResult['outcome'], string> = {
  withdrawn: 'Withdrawn: it had not been sent, so nothing exists at the service.',
  'cancel-requested': 'Cancel requested: it is sent to the pharmacy, which confirms it.',
  refused: 'Not cancelled',
};

interface Props {
  orders: OrderSummary[];
  onClose: () => void;
}

/**
 * Cancel one or many orders with a reason (sent to the pharmacy, kept with the order). Works offline: unsent
 * orders are withdrawn at once, the rest wait in the outbox. Each order's outcome is listed, refusals with why.
 */
export function CancelDialog({ orders, onClose }: Props) {
  const api = useApi();
  const dialogRef = useRef<HTMLDialogElement>(null);
  const reasonId = useId();
  const headingId = useId();
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [results, setResults] = useState<CancelResult[]>();
  const [failure, setFailure] = useState<unknown>();

  // Modal (focus stays inside, Escape closes). Unmounting removes it, which also ends the modal state.
  useEffect(() => {
    const dialog = dialogRef.current;
    if (dialog && !dialog.open) dialog.showModal();
  }, []);

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
    } catch (error) {
      setFailure(error);
    }
    setBusy(false);
  }

  const byId = new Map(orders.map((order) => [order.id, order]));
  const what = plural(orders.length, 'order');
  return (
    <dialog ref={dialogRef} aria-labelledby={headingId} className="dialog" onClose={onClose}>
      <h3 id={headingId}>Cancel {what}</h3>
      {results ? (
        <>
          <ul className="cancel-results" aria-label="Cancel results">
            {results.map((result) => (
              <li key={result.orderId}>
                <strong>
                  {result.clinicOrderId ?? byId.get(result.orderId)?.clinicOrderId ?? `Order ${result.orderId}`}
                </strong>
                : {result.outcome === 'refused' ? <span className="bad">! </span> : <span className="good">✓ </span>}
                {OUTCOME_TEXT[result.outcome]}
                {result.reason ? `: ${result.reason}` : ''}
              </li>
            ))}
          </ul>
          <div className="dialog-buttons">
            <button type="button" onClick={onClose}>
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
          <div className="field">
            <label htmlFor={reasonId}>Reason for cancelling</label>
            <textarea
              id={reasonId}
              value={reason}
              onChange={(event) => setReason(event.target.value)}
              required
              maxLength={500}
              rows={3}
            />
            <p className="hint">Sent to the pharmacy with the cancel. Avoid patient details.</p>
          </div>
          {failure ? <ErrorMessage error={failure} /> : null}
          <div className="dialog-buttons">
            <button type="submit" disabled={busy || !reason.trim()}>
              {busy ? 'Cancelling…' : `Cancel ${what}`}
            </button>
            <button type="button" className="secondary" onClick={onClose}>
              Keep {orders.length === 1 ? 'it' : 'them'}
            </button>
          </div>
        </form>
      )}
    </dialog>
  );
}
