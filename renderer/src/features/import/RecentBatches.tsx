import { useCallback, useState } from 'react';
import type { EnvironmentView } from '../../../../shared/environment.js';
import type { BatchView } from '../../../../shared/staging-views.js';
import { useApi } from '../../api/api-context.js';
import { useEvent } from '../../api/use-event.js';
import { useLoad } from '../../api/use-load.js';
import { ErrorMessage } from '../errors/ErrorMessage.js';
import { formatDateTime } from '../format/format-date.js';

/** How many batches the list shows at first, and how many more each "Load older batches" adds. */
const PAGE = 20;

/**
 * The environment's imported batches, newest first, each with what is left to review; older ones a page at a time
 * (live intake makes a batch per sender a day, so the newest few are not all there is to review). Mount it keyed by
 * the environment, so another environment starts again at its newest page.
 */
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
  const [pages, setPages] = useState(1);
  // Every page shown is read again on each change, so counts stay current on all of them.
  const load = useCallback(async () => {
    const shown: BatchView[] = [];
    let before: number | undefined;
    for (let page = 0; page < pages; page += 1) {
      // One more than a page: whether there is an older one to offer.
      const read = await api.call('batches.list', {
        environmentId: environment.id,
        limit: PAGE + 1,
        ...(before !== undefined ? { before } : {}),
      });
      shown.push(...read.slice(0, PAGE));
      if (read.length <= PAGE) return { shown, older: false };
      before = read[PAGE - 1]!.id;
    }
    return { shown, older: true };
  }, [api, environment.id, pages]);
  const batches = useLoad(load);
  useEvent('batches.changed', (change) => {
    if (change.environmentId === environment.id) batches.reload();
  });
  if (batches.error) return <ErrorMessage error={batches.error} />;
  if (!batches.value) return null;
  if (batches.value.shown.length === 0) {
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
            <th scope="col" className="number">
              Batch
            </th>
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
          {batches.value.shown.map((batch) => (
            <tr key={batch.id} className={batch.id === openBatchId ? 'selected' : undefined}>
              <th scope="row">
                {batch.sourceFileName}
                {batch.discardedAt ? <span className="hint"> (discarded)</span> : null}
              </th>
              <td className="number">{batch.id}</td>
              <td>{formatDateTime(batch.createdAt)}</td>
              <td className="number">{batch.counts.total.toLocaleString('en-GB')}</td>
              <td className="number">{batch.counts.valid.toLocaleString('en-GB')}</td>
              <td className="number">
                {batch.counts.invalid.toLocaleString('en-GB')}
                {batch.counts.notOrders ? (
                  <span className="hint"> ({batch.counts.notOrders.toLocaleString('en-GB')} no order at all)</span>
                ) : null}
              </td>
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
      {batches.value.older ? (
        <p>
          <button type="button" className="secondary" onClick={() => setPages((n) => n + 1)}>
            Load older batches
          </button>
        </p>
      ) : null}
    </section>
  );
}
