import { useCallback } from 'react';
import type { EnvironmentView } from '../../../../shared/environment.js';
import { useApi } from '../../api/api-context.js';
import { useEvent } from '../../api/use-event.js';
import { useLoad } from '../../api/use-load.js';
import { ErrorMessage } from '../errors/ErrorMessage.js';
import { formatDateTime } from '../format/format-date.js';

/** The environment's imported batches, newest first, each with what is left to review. */
export function RecentBatches({
  environment,
  openBatchId,
  onOpen,
}: {
  environment: EnvironmentView;
  openBatchId: number | undefined;
  onOpen: (batchId: number) => void;
}) {
  const api = useApi();
  const load = useCallback(
    () => api.call('batches.list', { environmentId: environment.id, limit: 20 }),
    [api, environment.id],
  );
  const batches = useLoad(load);
  useEvent('batches.changed', (change) => {
    if (change.environmentId === environment.id) batches.reload();
  });
  if (batches.error) return <ErrorMessage error={batches.error} />;
  if (!batches.value) return null;
  if (batches.value.length === 0) {
    return (
      <section aria-labelledby="batches-heading" className="panel">
        <h3 id="batches-heading">No batches imported into {environment.name} yet</h3>
        <p>
          Use “Download template” above and fill in one row per prescribed item (“Column guide” explains each column),
          or use your clinic system&apos;s own CSV or HL7 export; then choose the file. Its orders open here in Preview:
          every problem is marked on its cell, you fix them in place, and nothing is sent before you accept.
        </p>
      </section>
    );
  }
  return (
    <section aria-labelledby="batches-heading" className="panel">
      <h3 id="batches-heading">Imported batches</h3>
      <table>
        <thead>
          <tr>
            <th scope="col">File</th>
            <th scope="col">Imported</th>
            <th scope="col" className="number">
              Orders
            </th>
            <th scope="col" className="number">
              Valid
            </th>
            <th scope="col" className="number">
              With errors
            </th>
            <th scope="col" className="number">
              Accepted
            </th>
            <th scope="col">
              <span className="visually-hidden">Action</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {batches.value.map((batch) => (
            <tr key={batch.id} className={batch.id === openBatchId ? 'selected' : undefined}>
              <th scope="row">
                {batch.sourceFileName}
                {batch.discardedAt ? <span className="hint"> (discarded)</span> : null}
              </th>
              <td>{formatDateTime(batch.createdAt)}</td>
              <td className="number">{batch.counts.total.toLocaleString('en-GB')}</td>
              <td className="number">{batch.counts.valid.toLocaleString('en-GB')}</td>
              <td className="number">{batch.counts.invalid.toLocaleString('en-GB')}</td>
              <td className="number">{batch.counts.accepted.toLocaleString('en-GB')}</td>
              <td>
                <button
                  type="button"
                  className="secondary"
                  onClick={() => onOpen(batch.id)}
                  aria-label={`Review ${batch.sourceFileName} (batch ${batch.id})`}
                  aria-pressed={batch.id === openBatchId}
                >
                  Review
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
