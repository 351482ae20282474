import { useCallback } from 'react';
import type { AUDIT_CHAIN_PROBLEMS } from '../../../../shared/outbox-views.js';
import { useApi } from '../../api/api-context.js';
import { useLoad } from '../../api/use-load.js';
import { ErrorMessage } from '../errors/ErrorMessage.js';
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

/** Whether the log's hash chain is intact (checked on opening the screen and on request). */
export function ChainStatus() {
  const api = useApi();
  const load = useCallback(() => api.call('log.verify', {}), [api]);
  const { value, error, loading, reload } = useLoad(load);
  return (
    <section aria-labelledby="chain-heading" className="panel">
      <div className="panel-head">
        <h3 id="chain-heading">Chain verification</h3>
        <button type="button" className="secondary" onClick={reload} disabled={loading}>
          {loading ? 'Verifying…' : 'Verify again'}
        </button>
      </div>
      {error ? <ErrorMessage error={error} /> : null}
      {value?.ok ? (
        <p role="status" className="good">
          ✓ Verified: {plural(value.count, 'entry', 'entries')}, each linked to the one before; none changed or missing.
        </p>
      ) : null}
      {value && !value.ok ? (
        <div role="alert" className="message message-error">
          <p className="message-summary">! {summaryOf(value.problem, value.brokenAt)}</p>
          <p>{value.reason}</p>
          <p>Entries from there on cannot be trusted as recorded. Keep an exported copy and report it.</p>
        </div>
      ) : null}
      {!value && !error ? <p role="status">Verifying…</p> : null}
    </section>
  );
}
