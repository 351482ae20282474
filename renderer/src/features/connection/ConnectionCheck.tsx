import { useRef, useState } from 'react';
import type { ConnectionReport } from '../../../../shared/contract.js';
import type { EnvironmentView } from '../../../../shared/environment.js';
import { useApi } from '../../api/api-context.js';
import { settle, type Settled } from '../../api/settle.js';
import { ErrorMessage } from '../errors/ErrorMessage.js';
import { useFocusWhenLost } from '../focus/focus-return.js';
import { ConnectionReportView } from './ConnectionReportView.js';

/** Render with `key={environment.id}`: a report belongs to one environment. */
export function ConnectionCheck({ environment }: { environment: EnvironmentView }) {
  const api = useApi();
  const [checking, setChecking] = useState(false);
  const [outcome, setOutcome] = useState<Settled<ConnectionReport>>();
  // Disabled while it checks: the keyboard comes back to the button, beside the report it read.
  const buttonRef = useRef<HTMLButtonElement>(null);
  useFocusWhenLost(checking, () => buttonRef.current);

  async function check() {
    setChecking(true);
    setOutcome(await settle(api.call('connection.check', { environmentId: environment.id })));
    setChecking(false);
  }

  return (
    <section aria-labelledby="connection-heading" className="panel">
      <div className="panel-head">
        <h3 id="connection-heading">Connection</h3>
        <button type="button" ref={buttonRef} onClick={() => void check()} disabled={checking}>
          {checking ? 'Checking…' : 'Check connection'}
        </button>
      </div>
      <div role="status" aria-live="polite">
        {checking ? <p>Checking {environment.name}…</p> : null}
        {!checking && outcome?.ok ? <ConnectionReportView report={outcome.value} /> : null}
        {!checking && !outcome ? <p className="hint">Not checked yet.</p> : null}
      </div>
      {!checking && outcome && !outcome.ok ? <ErrorMessage error={outcome.error} /> : null}
    </section>
  );
}
