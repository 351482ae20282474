import { useCallback, useEffect, useId, useMemo, useState, useSyncExternalStore } from 'react';
import type { EnvironmentView } from '../../../../shared/environment.js';
import type { AcceptOutcome, BatchView, RouteName, StagedOrderView } from '../../../../shared/staging-views.js';
import { useApi } from '../../api/api-context.js';
import { useEvent } from '../../api/use-event.js';
import { ErrorMessage } from '../errors/ErrorMessage.js';
import { BatchPages } from './batch-pages.js';
import { CellDetails } from './CellDetails.js';
import { EnrichmentBar } from './EnrichmentBar.js';
import { downloadText } from '../../download-text.js';
import { derivedFileName } from './file-names.js';
import { FindReplace } from './FindReplace.js';
import type { GridCell } from './grid-focus.js';
import { PreviewGrid } from './PreviewGrid.js';
import { ServiceCheck } from './ServiceCheck.js';
import { ServiceMarks } from './service-marks.js';
import { useEnrichment } from './use-enrichment.js';
import { warningPages } from './warning-pages.js';
import './preview.css';

const ROUTE_LABELS: Record<RouteName, string> = {
  v1: 'Create with clinic (v1)',
  v2: 'Create (v2, clinics the service knows)',
  hl7: 'Forward the HL7 message',
};

/** Which orders the grid shows: all, those with validation problems, or those with service warnings (⚑). */
type GridFilter = 'all' | 'problems' | 'warnings';

const sameJson = (a: unknown, b: unknown) => a !== undefined && JSON.stringify(a) === JSON.stringify(b);

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-GB')} ${n === 1 ? one : many}`;

/**
 * Review of one staged batch: the grid, the focused cell's details, filter to problems, find and replace, the
 * route, the error export and accept, and the service check (products, stock, prices, couriers: warnings only,
 * shown apart from the validation problems, with their own filter). Everything shown is what the store holds;
 * every change goes through the contract and comes back re-validated. `openAtOrderId` (coming back from Lookups)
 * opens the grid at that order.
 */
export function BatchPreview({
  batchId,
  environment,
  openAtOrderId,
}: {
  batchId: number;
  environment: EnvironmentView;
  openAtOrderId?: number | undefined;
}) {
  const api = useApi();
  const gridId = useId().replace(/[^a-zA-Z0-9_-]/g, '');
  const [batch, setBatch] = useState<BatchView>();
  const [filter, setFilter] = useState<GridFilter>('all');
  const [reveal, setReveal] = useState<number>();
  const [generation, setGeneration] = useState(0);
  const [focus, setFocus] = useState<GridCell>({ index: 0, line: 0, col: 0 });
  const [failure, setFailure] = useState<unknown>();
  const [accepted, setAccepted] = useState<AcceptOutcome>();
  const [busy, setBusy] = useState<'accept' | 'export' | 'route'>();
  const [exported, setExported] = useState<string>();
  const enrichment = useEnrichment(batchId);

  // With the service-warnings filter a finished check changes which orders match: the window starts afresh.
  const warningsVersion = filter === 'warnings' ? enrichment.version : 0;
  const pages = useMemo(
    () =>
      new BatchPages<BatchView>(
        filter === 'warnings'
          ? warningPages({
              warnings: async (offset, limit) => {
                const found = await api.call('batches.enrichment', { batchId, offset, limit, onlyWarnings: true });
                return { orders: found.orders, total: found.total ?? 0 };
              },
              orders: (offset, limit) => api.call('batches.get', { batchId, offset, limit }),
            })
          : (offset, limit) =>
              api.call('batches.get', {
                batchId,
                offset,
                limit,
                ...(filter === 'problems' ? { onlyProblems: true } : {}),
              }),
        // Every page brings the batch view along; an unchanged one keeps the old object, so it re-renders nothing.
        { pageSize: 50, onBatch: (next) => setBatch((current) => (sameJson(current, next) ? current : next)) },
      ),
    // `generation` starts a fresh window after a change the cache cannot patch (find and replace, a new route).
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [api, batchId, filter, generation, warningsVersion],
  );
  // The details panel reads the focused order from the same window, so it follows pages and edits too; only a
  // change of that order (or of the count, or a failed fetch) re-renders the screen, not every page that arrives.
  // (`get`, not `peek`: reading it keeps its page among the most recently used, so the details never go blank.)
  const focusedOrder = useSyncExternalStore(pages.subscribe, () => pages.get(focus.index));
  const filteredTotal = useSyncExternalStore(pages.subscribe, () => pages.total);
  const pagesError = useSyncExternalStore(pages.subscribe, () => pages.error);
  useEffect(() => {
    void pages.ensure(0, pages.pageSize - 1);
    return () => pages.dispose();
  }, [pages]);

  const marks = useMemo(
    () =>
      new ServiceMarks(
        async (stagedOrderIds) => (await api.call('batches.enrichment', { batchId, stagedOrderIds })).orders,
      ),
    [api, batchId],
  );
  // A finished check changed the stored answers: the marks are read again.
  useEffect(() => marks.reset(), [marks, enrichment.version]);
  // Once the batch has been checked, the grid reads the marks of the orders it shows (stored answers only).
  const checked = enrichment.run !== null || enrichment.version > 0;

  // Back from Lookups: the order's place in the unfiltered grid is its position in the file (1-based).
  useEffect(() => {
    if (openAtOrderId === undefined) return;
    let live = true;
    api.call('batches.enrichment', { batchId, stagedOrderIds: [openAtOrderId] }).then(
      (found) => {
        const position = found.orders[0]?.position;
        if (live && position !== undefined) setReveal(position - 1);
      },
      (error: unknown) => {
        if (live) setFailure(error);
      },
    );
    return () => {
      live = false;
    };
  }, [api, batchId, openAtOrderId]);

  function chooseFilter(next: GridFilter) {
    setFilter(next);
    setReveal(undefined);
    setFocus({ index: 0, line: 0, col: 0 });
  }

  const refreshBatch = useCallback(async () => {
    try {
      const answer = await api.call('batches.get', { batchId, limit: 1 });
      setBatch(answer.batch);
    } catch (error) {
      setFailure(error);
    }
  }, [api, batchId]);

  useEvent('batches.changed', (change) => {
    if (change.batchId === batchId) void refreshBatch();
  });

  const onEdit = useCallback(
    async (order: StagedOrderView, path: string, value: string): Promise<boolean> => {
      try {
        const updated = await api.call('batches.editOrder', { stagedOrderId: order.id, edits: [{ path, value }] });
        pages.replace(updated);
        setFailure(undefined);
        void refreshBatch();
        return true;
      } catch (error) {
        setFailure(error);
        return false;
      }
    },
    [api, pages, refreshBatch],
  );

  async function accept() {
    setBusy('accept');
    try {
      setAccepted(await api.call('batches.accept', { batchId }));
      setFailure(undefined);
      setGeneration((g) => g + 1);
    } catch (error) {
      setFailure(error);
    } finally {
      setBusy(undefined);
    }
  }

  async function exportErrors() {
    if (!batch) return;
    setBusy('export');
    try {
      const result = await api.call('batches.exportErrors', { batchId });
      downloadText(derivedFileName(batch.sourceFileName, 'errors'), result.text);
      setExported(
        `Exported ${plural(result.orders, 'order')} with errors, with their original rows and an errors column.`,
      );
    } catch (error) {
      setFailure(error);
    } finally {
      setBusy(undefined);
    }
  }

  async function changeRoute(route: RouteName) {
    setBusy('route');
    try {
      await api.call('batches.setRoute', { batchId, route });
      setGeneration((g) => g + 1);
      await refreshBatch();
    } catch (error) {
      setFailure(error);
    } finally {
      setBusy(undefined);
    }
  }

  const counts = batch?.counts;
  const staying = counts ? counts.staged - counts.valid : 0;

  return (
    <section aria-labelledby="preview-heading" className="preview">
      <div className="panel">
        <div className="panel-head">
          <h3 id="preview-heading">Preview: {batch?.sourceFileName ?? `batch ${batchId}`}</h3>
          {counts ? (
            <p role="status" aria-label="Batch counts" className="preview-counts">
              {plural(counts.total, 'order')}:{' '}
              <span className="good">✓ {counts.valid.toLocaleString('en-GB')} valid</span>
              {' · '}
              <span className={counts.invalid ? 'bad' : undefined}>
                ✕ {counts.invalid.toLocaleString('en-GB')} with errors
              </span>
              {counts.accepted ? ` · → ${counts.accepted.toLocaleString('en-GB')} accepted` : ''}
            </p>
          ) : null}
        </div>
        <div className="preview-toolbar">
          {/* Two alternatives, not combined: ticking one unticks the other. */}
          <label className="check">
            <input
              type="checkbox"
              checked={filter === 'problems'}
              onChange={(event) => chooseFilter(event.target.checked ? 'problems' : 'all')}
            />{' '}
            Only orders with problems
          </label>
          <label className="check">
            <input
              type="checkbox"
              checked={filter === 'warnings'}
              onChange={(event) => chooseFilter(event.target.checked ? 'warnings' : 'all')}
            />{' '}
            Only orders with service warnings <span aria-hidden="true">⚑</span>
          </label>
          {batch ? (
            <label>
              Send as{' '}
              <select
                value={batch.route}
                disabled={busy === 'route'}
                onChange={(event) => void changeRoute(event.target.value as RouteName)}
              >
                {(['v1', 'v2', ...(batch.kind === 'hl7' ? (['hl7'] as const) : [])] as RouteName[]).map((route) => (
                  <option key={route} value={route}>
                    {ROUTE_LABELS[route]}
                  </option>
                ))}
              </select>
            </label>
          ) : null}
          <button
            type="button"
            className="secondary"
            onClick={() => void exportErrors()}
            disabled={!counts?.invalid || busy === 'export'}
          >
            {busy === 'export' ? 'Exporting…' : 'Export errors as CSV'}
          </button>
          <button
            type="button"
            onClick={() => void accept()}
            disabled={!counts?.valid || busy === 'accept'}
            aria-describedby="accept-note"
          >
            {busy === 'accept' ? 'Accepting…' : `Accept ${plural(counts?.valid ?? 0, 'valid order')}`}
          </button>
          <span id="accept-note" className="hint">
            {counts ? `${plural(staying, 'order')} with errors will stay here to fix.` : ''}
          </span>
        </div>
        <EnrichmentBar environment={environment} control={enrichment} />
        {filter === 'warnings' && filteredTotal !== undefined ? (
          <p role="status" className="hint">
            {filteredTotal > 0
              ? `Showing ${plural(filteredTotal, 'order')} with service warnings (out of stock, unknown code, courier not listed).`
              : checked
                ? 'No staged order has service warnings.'
                : 'No service warnings yet: check products and stock first.'}
          </p>
        ) : null}
        {exported ? <p role="status">{exported}</p> : null}
        {accepted ? (
          <p role="status" className="message">
            ✓ Accepted {plural(accepted.accepted, 'order')} into the outbox for {environment.name}
            {accepted.cancelled ? ` and ${plural(accepted.cancelled, 'cancel request')}` : ''};{' '}
            {plural(accepted.staying, 'order')} stay{accepted.staying === 1 ? 's' : ''} staged.{' '}
            <a href="#/submissions">Watch them being sent</a>
          </p>
        ) : null}
        {failure ? <ErrorMessage error={failure} /> : null}
        {pagesError ? <ErrorMessage error={pagesError} /> : null}
        <div className="preview-body">
          <PreviewGrid
            key={`${filter}-${generation}-${warningsVersion}`}
            gridId={gridId}
            label={`Orders in ${batch?.sourceFileName ?? `batch ${batchId}`}`}
            pages={pages}
            focus={focus}
            onFocus={setFocus}
            onEdit={onEdit}
            marks={checked ? marks : undefined}
            reveal={filter === 'all' ? reveal : undefined}
          />
          <CellDetails order={focusedOrder} line={focus.line} col={focus.col} onEdit={onEdit}>
            {focusedOrder ? (
              <ServiceCheck batchId={batchId} order={focusedOrder} line={focus.line} version={enrichment.version} />
            ) : null}
          </CellDetails>
        </div>
        <p className="hint">
          Arrow keys move between cells, Enter edits the cell, Escape cancels the edit; a ✕ or ⚠ marks a problem, and a
          ⚑ a warning from the service check, explained when the cell has focus or the pointer is over it.
        </p>
        {batch ? <FindReplace batch={batch} onReplaced={() => setGeneration((g) => g + 1)} /> : null}
      </div>
    </section>
  );
}
