import { useRef, useState } from 'react';
import type { EnvironmentView } from '../../../../shared/environment.js';
import type { OrderStateName } from '../../../../shared/order-views.js';
import type { OutboxProgressView } from '../../../../shared/outbox-views.js';
import { useApi } from '../../api/api-context.js';
import { ErrorMessage } from '../errors/ErrorMessage.js';
import { useFocusWhenLost } from '../focus/focus-return.js';
import { formatCount } from '../format/format-time.js';
import { useLive } from '../live/live-context.js';
import { ORDER_STATE_TEXT, TONE_SYMBOL } from '../orders/order-states.js';
import { describeBatches } from './batch-progress.js';
import { formatRate, needPerson, slowServiceSentence, summarizeProgress } from './progress-summary.js';
import './live-state.css';

const OUTBOX_STATE_LABELS: Record<OutboxProgressView['state'], string> = {
  idle: 'Idle: nothing to send',
  sending: 'Sending',
  paused: 'Paused',
  'sign-in-required': 'Waiting for sign-in',
  'service-unavailable': 'Waiting for the service',
};

/** The states shown in the breakdown, in the order an order moves through them. */
const SHOWN: readonly OrderStateName[] = [
  'queued',
  'sending',
  'in_doubt',
  'created',
  'rejected',
  'held',
  'cancel_requested',
  'cancel_sent',
  'cancelled',
  'cancel_refused',
  'withdrawn',
  'ready',
];

export function ProgressPanel({
  environment,
  progress,
}: {
  environment: EnvironmentView;
  progress: OutboxProgressView;
}) {
  const api = useApi();
  const { setProgress } = useLive();
  const [failure, setFailure] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  // Disabled while the outbox answers, the button keeps the keyboard as it turns into Resume (or Pause).
  const toggleRef = useRef<HTMLButtonElement>(null);
  useFocusWhenLost(busy, () => toggleRef.current);
  const summary = summarizeProgress(progress.counts, progress.notedOutsideAttention ?? 0);
  const paused = progress.state === 'paused';
  const percent = Math.floor(summary.fraction * 100);
  const slow = slowServiceSentence(progress.slow);

  async function togglePause() {
    setBusy(true);
    setFailure(undefined);
    try {
      setProgress(await api.call(paused ? 'outbox.resume' : 'outbox.pause', { environmentId: environment.id }));
    } catch (error) {
      setFailure(error);
    }
    setBusy(false);
  }

  return (
    <section aria-labelledby="progress-heading" className="panel">
      <div className="panel-head">
        <h3 id="progress-heading">Progress</h3>
        <button type="button" className="secondary" ref={toggleRef} onClick={() => void togglePause()} disabled={busy}>
          {paused ? 'Resume sending' : 'Pause sending'}
        </button>
      </div>
      {failure ? <ErrorMessage error={failure} /> : null}
      <progress
        className="progress"
        aria-label="Submission progress"
        max={Math.max(summary.total, 1)}
        value={summary.settled}
      >
        {percent}%
      </progress>
      <p className="progress-line">
        All batches:{' '}
        <strong>
          {formatCount(summary.settled)} of {formatCount(summary.total)} orders settled
        </strong>{' '}
        ({percent}%) · {formatCount(summary.waiting)} to go
        {/* Settled is not done: a rejected or held order waits for a person, whatever the bar says. */}
        {summary.needsAttention > 0 ? (
          <>
            {' '}
            · <strong className="tone-attention">{needPerson(summary.needsAttention)}</strong>
          </>
        ) : null}{' '}
        · {formatRate(progress.ordersPerSecond)} · <span>{OUTBOX_STATE_LABELS[progress.state]}</span>
      </p>
      <BatchProgressList progress={progress} />
      <p role="status" className="hint slow-service">
        {slow}
      </p>
      <table className="counts">
        <caption className="visually-hidden">Orders per state</caption>
        <thead>
          <tr>
            <th scope="col">State</th>
            <th scope="col" className="number">
              Orders
            </th>
            <th scope="col">Meaning</th>
          </tr>
        </thead>
        <tbody>
          {SHOWN.map((state) => {
            const text = ORDER_STATE_TEXT[state];
            const count = progress.counts[state] ?? 0;
            // An earlier version's staged orders: a row only while there are some (Not accepted yet lists today's).
            if (state === 'ready' && count === 0) return null;
            return (
              <tr key={state} className={count === 0 ? 'quiet' : undefined}>
                <th scope="row">
                  <span className={`tone tone-${text.tone}`}>
                    <span aria-hidden="true">{TONE_SYMBOL[text.tone]}</span> {text.label}
                  </span>
                </th>
                <td className="number">{formatCount(count)}</td>
                <td className="hint">{text.meaning}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}

/** Why a batch's orders do not go now, said instead of a time left. */
const HELD: Partial<Record<OutboxProgressView['state'], string>> = {
  paused: 'paused',
  'sign-in-required': 'waiting for sign-in',
  'service-unavailable': 'waiting for the service',
};

/** Each batch last sent from, newest first: its own N of M, rate and time left (the line above is every batch). */
function BatchProgressList({ progress }: { progress: OutboxProgressView }) {
  const lines = describeBatches(progress.batches ?? [], HELD[progress.state] ?? null);
  if (lines.length === 0) return null;
  return (
    <section aria-labelledby="batch-progress-heading" className="batch-progress">
      <h4 id="batch-progress-heading">By batch</h4>
      <ul>
        {lines.map((line) => (
          <li key={line.batchId} aria-label={`Batch ${line.batchId}`}>
            <p>
              <strong>{line.name}</strong>: {line.text}
              {line.timeLeftWords ? <span className="visually-hidden"> ({line.timeLeftWords})</span> : null}
            </p>
            <progress
              className="progress"
              aria-label={`Progress of batch ${line.batchId}`}
              max={Math.max(line.summary.total, 1)}
              value={line.summary.settled}
            />
          </li>
        ))}
      </ul>
    </section>
  );
}
