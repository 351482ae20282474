import { useCallback } from 'react';
import { useApi } from '../../api/api-context.js';
import { useLoad } from '../../api/use-load.js';
import { ErrorMessage } from '../errors/ErrorMessage.js';
import { plural } from '../format/format-time.js';

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
          <p className="message-summary">! The chain is broken at entry {value.brokenAt}.</p>
          <p>{value.reason}</p>
          <p>Entries from there on cannot be trusted as recorded. Keep an exported copy and report it.</p>
        </div>
      ) : null}
      {!value && !error ? <p role="status">Verifying…</p> : null}
    </section>
  );
}
