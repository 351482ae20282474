import { useCallback } from 'react';
import type { EnvironmentView } from '../../../../shared/environment.js';
import { useApi } from '../../api/api-context.js';
import { useEvent } from '../../api/use-event.js';
import { useLoad } from '../../api/use-load.js';
import { plural } from '../../../../shared/count-words.js';
import { routeHref } from '../workspace/route.js';
import { leftInPreview } from './left-in-preview.js';

/** The newest batches read for it: enough for a day's imports and intake batches. */
const BATCHES_READ = 100;

/** Orders imported and not accepted yet, with links to their batches (left-in-preview.ts). */
export function LeftInPreviewPanel({ environment }: { environment: EnvironmentView }) {
  const api = useApi();
  const load = useCallback(
    () => api.call('batches.list', { environmentId: environment.id, limit: BATCHES_READ }),
    [api, environment.id],
  );
  const batches = useLoad(load);
  useEvent('batches.changed', (change) => {
    if (change.environmentId === environment.id) batches.reload();
  });
  const left = batches.value ? leftInPreview(batches.value) : undefined;
  if (!left) return null;
  return (
    <section aria-labelledby="left-in-preview-heading" className="panel">
      <h3 id="left-in-preview-heading">Not accepted yet</h3>
      <p>{left.sentence}</p>
      <ul>
        {left.batches.map((batch) => (
          <li key={batch.batchId}>
            <a className="inline-link" href={routeHref({ section: 'import', batch: { batchId: batch.batchId } })}>
              {batch.text}
            </a>
          </li>
        ))}
      </ul>
      {left.more > 0 ? (
        <p className="hint">
          And {plural(left.more, 'more batch', 'more batches')}: see the batches on the Import screen.
        </p>
      ) : null}
    </section>
  );
}
