import type { ConnectionReport } from '../../../../shared/contract.js';

function grantsText(identity: ConnectionReport['identity']): string {
  const grants = [
    identity.deviceAuthorization ? 'device sign-in' : undefined,
    identity.clientCredentials ? 'client credentials' : undefined,
  ].filter(Boolean);
  return grants.length ? `Supports ${grants.join(' and ')}.` : 'Supports no sign-in method Rx Batch can use.';
}

/** The facts first; the core's own message where it explains a problem rather than repeating the facts. */
export function ConnectionReportView({ report }: { report: ConnectionReport }) {
  const { api, identity } = report;
  const apiProblem = !api.reachable || (api.status !== undefined && api.status >= 400);
  const identityProblem = !identity.reachable || (!identity.deviceAuthorization && !identity.clientCredentials);
  return (
    <dl className="report">
      <dt>Order Service</dt>
      <dd>
        <strong className={apiProblem ? 'bad' : 'good'}>
          {api.reachable ? 'Reachable' : 'Not reachable'}
          {api.latencyMs !== undefined ? ` (${Math.round(api.latencyMs)} ms)` : ''}
        </strong>
        {apiProblem ? <span className="report-message">{api.message}</span> : null}
      </dd>
      <dt>Identity server</dt>
      <dd>
        <strong className={identityProblem ? 'bad' : 'good'}>
          {identity.reachable ? 'Reachable' : 'Not reachable'}
        </strong>
        {identity.reachable ? <span className="report-message">{grantsText(identity)}</span> : null}
        {identityProblem ? <span className="report-message">{identity.message}</span> : null}
      </dd>
    </dl>
  );
}
