import { useId, useRef } from 'react';
import type { EnvironmentView } from '../../../../shared/environment.js';
import { ErrorMessage } from '../errors/ErrorMessage.js';
import { useFocusWhenLost } from '../focus/focus-return.js';
import { formatCount } from '../format/format-time.js';
import { useNow } from '../format/use-now.js';
import { useOnline } from '../format/use-online.js';
import { useLive } from '../live/live-context.js';
import { checkBlockedReason, runLine } from './enrichment-text.js';
import type { EnrichmentControl } from './use-enrichment.js';

/**
 * "Check products and stock" for the batch: the button (disabled, with the reason beside it, when offline or
 * signed out), progress with cancel while the check runs, and the last check's summary with its time.
 */
export function EnrichmentBar({ environment, control }: { environment: EnvironmentView; control: EnrichmentControl }) {
  const id = useId();
  const online = useOnline();
  const { signIn } = useLive();
  const now = useNow(30_000);
  const blocked = checkBlockedReason({
    online,
    signedIn: signIn[environment.id]?.signedIn,
    environmentName: environment.name,
    hasClientId: environment.clientId !== '',
  });
  const { progress, run } = control;
  const running = control.starting || progress !== null;
  const last = run ? runLine(run, now) : undefined;
  const checkRef = useRef<HTMLButtonElement>(null);
  const cancelRef = useRef<HTMLButtonElement>(null);
  // The check button is disabled while the check runs: the keyboard goes to "Cancel check", then back.
  useFocusWhenLost(running, () => (running ? cancelRef.current : checkRef.current));

  return (
    <section className="enrichment-bar" aria-labelledby={`${id}-heading`}>
      <h4 id={`${id}-heading`} className="visually-hidden">
        Check the batch with the service
      </h4>
      <div className="enrichment-actions">
        <button
          type="button"
          className="secondary"
          ref={checkRef}
          onClick={() => void control.start()}
          disabled={running || blocked !== undefined}
          aria-describedby={`${id}-about`}
        >
          {running ? 'Checking products and stock…' : 'Check products and stock'}
        </button>
        {running ? (
          <>
            <progress
              aria-label="Products and stock checked"
              value={progress?.done ?? 0}
              max={Math.max(progress?.total ?? 0, 1)}
            />
            <span role="status">
              {progress && progress.total > 0
                ? `${formatCount(progress.done)} of ${formatCount(progress.total)} checked (${formatCount(progress.calls)} calls)`
                : 'Starting…'}
            </span>
            <button type="button" ref={cancelRef} onClick={() => void control.cancel()} disabled={control.cancelling}>
              {control.cancelling ? 'Cancelling…' : 'Cancel check'}
            </button>
          </>
        ) : null}
        <span id={`${id}-about`} className="hint">
          {blocked ??
            'Asks the service about each dm+d code and courier once: product, stock, price. Its warnings never stop accepting.'}
        </span>
      </div>
      {last ? (
        <p role="status" aria-label="Last service check" className={`enrichment-summary ${last.tone}`}>
          <span aria-hidden="true">{last.mark} </span>
          {last.text}
        </p>
      ) : null}
      {control.error ? <ErrorMessage error={control.error} /> : null}
    </section>
  );
}
