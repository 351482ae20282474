import { useCallback, useEffect, useState } from 'react';
import type { EnrichmentProgress, EnrichmentRun } from '../../../../shared/enrichment-views.js';
import { useApi } from '../../api/api-context.js';
import { useEvent } from '../../api/use-event.js';

export interface EnrichmentControl {
  /** The last finished check of the batch, as stored (readable offline). */
  run: EnrichmentRun | null;
  /** The check running now, if any (this window's or another's). */
  progress: EnrichmentProgress | null;
  /** Bumped whenever a check finishes: stored answers changed, views should be read again. */
  version: number;
  starting: boolean;
  cancelling: boolean;
  error: unknown;
  start: () => Promise<void>;
  cancel: () => Promise<void>;
}

/**
 * The batch's service check (enrichment): its last result, live progress from `enrichment.progress` events,
 * and start and cancel. The core runs one check per batch; starting while one runs joins it.
 */
export function useEnrichment(batchId: number): EnrichmentControl {
  const api = useApi();
  const [run, setRun] = useState<EnrichmentRun | null>(null);
  const [progress, setProgress] = useState<EnrichmentProgress | null>(null);
  const [version, setVersion] = useState(0);
  const [starting, setStarting] = useState(false);
  const [cancelling, setCancelling] = useState(false);
  const [error, setError] = useState<unknown>();

  useEffect(() => {
    let live = true;
    api.call('batches.enrichment', { batchId, stagedOrderIds: [] }).then(
      (state) => {
        if (!live) return;
        setRun(state.run);
        setProgress(state.progress);
      },
      (failure: unknown) => {
        if (live) setError(failure);
      },
    );
    return () => {
      live = false;
    };
  }, [api, batchId]);

  useEvent('enrichment.progress', (event) => {
    if (event.batchId !== batchId) return;
    setProgress(event.state === 'running' ? event : null);
    if (event.state === 'finished') {
      setCancelling(false);
      setVersion((v) => v + 1);
      // Another window's check ended: read its summary (this window's own arrives with its answer).
      void api.call('batches.enrichment', { batchId, stagedOrderIds: [] }).then(
        (state) => setRun(state.run),
        () => undefined,
      );
    }
  });

  const start = useCallback(async () => {
    setStarting(true);
    setError(undefined);
    try {
      setRun(await api.call('batches.enrich', { batchId }));
      setVersion((v) => v + 1);
    } catch (failure) {
      setError(failure);
    } finally {
      setStarting(false);
      setCancelling(false);
      setProgress(null);
    }
  }, [api, batchId]);

  const cancel = useCallback(async () => {
    setCancelling(true);
    try {
      await api.call('batches.enrichCancel', { batchId });
    } catch (failure) {
      setError(failure);
      setCancelling(false);
    }
  }, [api, batchId]);

  return { run, progress, version, starting, cancelling, error, start, cancel };
}
