import { useCallback, useRef, useState } from 'react';
import type { AUDIT_CHAIN_PROBLEMS } from '../../../../shared/log-views.js';
import { useApi } from '../../api/api-context.js';
import { useEvent } from '../../api/use-event.js';
import { useLoad } from '../../api/use-load.js';
import { ErrorMessage } from '../errors/ErrorMessage.js';
import { useFocusWhenLost } from '../focus/focus-return.js';
import { plural } from '../format/format-time.js';

type Problem = (typeof AUDIT_CHAIN_PROBLEMS)[number];

/** The first line of a failed verification: what happened, at the first entry concerned. */
function summaryOf(problem: Problem, at: number): string {
  switch (problem) {
    case 'truncated':
      return `Entries are missing from entry ${at} on: the log was cut short or an older copy restored.`;
    case 'diverged':
      return `Entry ${at} is not the one recorded: the log was rewritten or an older copy restored.`;
    case 'unkeyed':
    case 'altered':
      return `Entry ${at} was changed after it was written.`;
    case 'unknown-key':
      return `Entry ${at} cannot be checked here: it was keyed by another program or a lost key.`;
    default:
      return `The chain is broken at entry ${at}.`;
  }
}

/** Whether the log's hash chain is intact: what was added since the last check on opening the screen and on
 * request, and the whole chain on request, with its progress and a cancel (a long log takes a while). */
export function ChainStatus() {
  const api = useApi();
  const [full, setFull] = useState(false);
  const load = useCallback(() => api.call('log.verify', full ? { full: true } : {}), [api, full]);
  const { value, error, loading, reload } = useLoad(load);
  // The check made on opening the screen moves no focus; one asked for with a button does.
  const asked = useRef(false);
  const [progress, setProgress] = useState<{ done: number; total: number | null }>();
  useEvent('log.progress', (event) => {
    if (event.operation === 'verify') setProgress(event.finished ? undefined : event);
  });

  function check(whole: boolean) {
    asked.current = true;
    setProgress(undefined);
    // One render for both: the load runs once, as the kind of check just chosen.
    setFull(whole);
    reload();
  }

  function cancel() {
    void api.call('log.cancel', { operation: 'verify' });
  }

  const report = value && !('cancelled' in value) ? value : undefined;
  const cancelled = value && 'cancelled' in value ? value : undefined;
  const busy = loading && full;
  const againRef = useRef<HTMLButtonElement>(null);
  const wholeRef = useRef<HTMLButtonElement>(null);
  const cancelRef = useRef<HTMLButtonElement>(null);
  // Both buttons are disabled while a check runs: the keyboard goes to its cancel (whole log), then back.
  useFocusWhenLost(loading, () =>
    !asked.current ? null : busy ? cancelRef.current : full ? wholeRef.current : againRef.current,
  );
  return (
    <section aria-labelledby="chain-heading" className="panel">
      <div className="panel-head">
        <h3 id="chain-heading">Chain verification</h3>
        <div className="button-row">
          <button type="button" className="secondary" ref={againRef} onClick={() => check(false)} disabled={loading}>
            {loading && !full ? 'Verifying…' : 'Verify again'}
          </button>
          <button type="button" className="secondary" ref={wholeRef} onClick={() => check(true)} disabled={loading}>
            Check the whole log
          </button>
          {busy ? (
            <button type="button" className="secondary" ref={cancelRef} onClick={cancel}>
              Cancel check
            </button>
          ) : null}
        </div>
      </div>
      {error ? <ErrorMessage error={error} /> : null}
      {busy ? (
        <>
          {progress?.total ? (
            <progress max={progress.total} value={progress.done} aria-label="Whole-log check progress" />
          ) : null}
          <p role="status">
            Checking the whole log…
            {progress?.total ? ` ${progress.done.toLocaleString()} of ${progress.total.toLocaleString()} entries` : ''}
          </p>
        </>
      ) : null}
      {!loading && report?.ok ? (
        <p role="status" className="good">
          ✓ Verified{full ? ' (the whole log)' : ''}: {plural(report.count, 'entry', 'entries')}, each linked to the one
          before; none changed or missing.
        </p>
      ) : null}
      {!loading && report && !report.ok ? (
        <div role="alert" className="message message-error">
          <p className="message-summary">! {summaryOf(report.problem, report.brokenAt)}</p>
          <p>{report.reason}</p>
          <p>Entries from there on cannot be trusted as recorded. Keep an exported copy and report it.</p>
        </div>
      ) : null}
      {!loading && cancelled ? (
        <p role="status">
          Check stopped after {cancelled.checked.toLocaleString()} of {cancelled.total.toLocaleString()} entries;
          nothing was wrong up to there.
        </p>
      ) : null}
      {loading && !full ? <p role="status">Verifying…</p> : null}
    </section>
  );
}
