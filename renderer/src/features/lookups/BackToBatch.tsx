import { useEffect, useState } from 'react';
import { useApi } from '../../api/api-context.js';
import { routeHref, type BatchPlace } from '../workspace/route.js';

/**
 * "Back to batch N (file name)": the way from a lookup opened in the preview back to the same batch and order.
 * A plain link (keyboard reachable, its text its accessible name); the file name comes when the batch is read,
 * and the link works without it.
 */
export function BackToBatch({ place }: { place: BatchPlace }) {
  const api = useApi();
  const [fileName, setFileName] = useState<string>();

  useEffect(() => {
    let live = true;
    api.call('batches.get', { batchId: place.batchId, limit: 1 }).then(
      (answer) => {
        if (live) setFileName(answer.batch.sourceFileName);
      },
      // No name (the batch was discarded, say): the link still says which batch, and the preview explains.
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [api, place.batchId]);

  return (
    <p className="back-link">
      <a href={routeHref({ section: 'import', batch: place })}>
        <span aria-hidden="true">← </span>Back to batch {place.batchId}
        {fileName ? ` (${fileName})` : ''}
      </a>
    </p>
  );
}
