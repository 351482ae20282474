import { useCallback, useEffect, useId, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import type { EnvironmentView } from '../../../../shared/environment.js';
import type { AcceptOutcome, BatchView, RouteName, StagedOrderView } from '../../../../shared/staging-views.js';
import { invalidInWords, notOrdersSentence } from '../../../../shared/hl7-message-types.js';
import { useApi } from '../../api/api-context.js';
import { useEvent } from '../../api/use-event.js';
import { ErrorMessage } from '../errors/ErrorMessage.js';
import { useFocusWhenLost } from '../focus/focus-return.js';
import { formatDateTime } from '../format/format-date.js';
import { BatchPages } from './batch-pages.js';
import { CellDetails } from './CellDetails.js';
import { ConfirmDialog } from './ConfirmDialog.js';
import { EnrichmentBar } from './EnrichmentBar.js';
import { startExportDownload } from '../../download-export.js';
import { FindReplace } from './FindReplace.js';
import { ALL_COLUMNS, visibleColumns } from './grid-columns.js';
import type { GridCell } from './grid-focus.js';
import { problemCells, problemInOrder } from './problem-navigation.js';
import { problemColumnsText } from './problem-columns-text.js';
import { PreviewGrid, type GridHandle } from './PreviewGrid.js';
import { ROUTE_TEXT } from './route-text.js';
import { ServiceCheck } from './ServiceCheck.js';
import { ServiceMarks } from './service-marks.js';
import { describeStep, stepMessage } from './undo-text.js';
import { useEnrichment } from './use-enrichment.js';
import { warningPages } from './warning-pages.js';
import './preview.css';

/** Which orders the grid shows: all, those with validation problems, or those with service warnings (⚑). */
type GridFilter = 'all' | 'problems' | 'warnings';

const sameJson = (a: unknown, b: unknown) => a !== undefined && JSON.stringify(a) === JSON.stringify(b);

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-GB')} ${n === 1 ? one : many}`;

const DETAILS_KEY = 'rx-batch.preview.details';
function detailsShown(): boolean {
  try {
    return window.localStorage.getItem(DETAILS_KEY) !== 'hidden';
  } catch {
    return true;
  }
}

/** Keys typed into a field are the field's (its own undo, its own text), not the grid's. */
const typingIn = (target: EventTarget | null) =>
  target instanceof HTMLElement &&
  (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));

type Busy = 'accept' | 'export' | 'route' | 'undo' | 'redo' | 'discard' | 'problem';

/**
 * Review of one staged batch, as a workspace: the grid across the window (order, clinic order id and surname
 * frozen at the left, a summary naming each order's fields at fault), the focused cell's details beside it
 * (collapsible), next and previous problem (F8, Shift+F8) to the exact cell, undo and redo of edits and find and
 * replace across the batch (Ctrl+Z, Ctrl+Shift+Z), filters, the route, the error export, accept (confirmed by name
 * and count outside the local sandbox) and discard. Everything shown is what the store holds; every change goes
 * through the contract and comes back re-validated. `openAtOrderId` (back from Lookups) opens the grid there.
 */
export function BatchPreview({
  batchId,
  environment,
  openAtOrderId,
  bringIntoView = false,
}: {
  batchId: number;
  environment: EnvironmentView;
  openAtOrderId?: number | undefined;
  /** Scroll the window to the preview as it opens (nothing above it needs the admin first). */
  bringIntoView?: boolean;
}) {
  const api = useApi();
  const sectionRef = useRef<HTMLElement>(null);
  useEffect(() => {
    if (bringIntoView) sectionRef.current?.scrollIntoView({ block: 'start' });
    // Once, as it opens: later changes of what is above must not pull the window back here.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  const gridId = useId().replace(/[^a-zA-Z0-9_-]/g, '');
  const detailsId = `${gridId}-details`;
  const gridRef = useRef<GridHandle>(null);
  const [batch, setBatch] = useState<BatchView>();
  const [filter, setFilter] = useState<GridFilter>('all');
  /** The problems filter's fields (general paths), so only their columns show; undefined: all columns. */
  const [problemFields, setProblemFields] = useState<ReadonlySet<string>>();
  const [allColumns, setAllColumns] = useState(false);
  const [reveal, setReveal] = useState<number>();
  const [generation, setGeneration] = useState(0);
  const [focus, setFocusState] = useState<GridCell>({ index: 0, line: 0, col: 0 });
  /** The focus as last set, for problem moves queued behind one another (each starts where the last ended). */
  const focusRef = useRef(focus);
  const setFocus = useCallback((cell: GridCell) => {
    focusRef.current = cell;
    setFocusState(cell);
  }, []);
  /** Problem moves run one after another: a second F8 before the first is answered moves on from where it lands. */
  const moves = useRef<Promise<void>>(Promise.resolve());
  const [failure, setFailure] = useState<unknown>();
  const [accepted, setAccepted] = useState<AcceptOutcome>();
  // The accept button goes once every valid order is accepted: the keyboard goes to what happened, and its link on.
  const acceptedRef = useRef<HTMLParagraphElement>(null);
  useFocusWhenLost(accepted, () => acceptedRef.current);
  const [busy, setBusy] = useState<Busy>();
  const [notice, setNotice] = useState<string>();
  const [asking, setAsking] = useState<'accept' | 'discard'>();
  const [showDetails, setShowDetails] = useState(detailsShown);
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
    // `generation` starts a fresh window after a change the cache cannot patch (a new route, an accept).
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

  const columns = useMemo(
    () => (filter === 'problems' && problemFields && !allColumns ? visibleColumns(problemFields) : ALL_COLUMNS),
    [filter, problemFields, allColumns],
  );

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

  async function chooseFilter(next: GridFilter) {
    setFilter(next);
    setReveal(undefined);
    setFocus({ index: 0, line: 0, col: 0 });
    setNotice(undefined);
    setProblemFields(undefined);
    if (next !== 'problems') return;
    // Only the columns with problems in the batch, so every bad cell is in view at once.
    try {
      const answer = await api.call('batches.problemFields', { batchId });
      setProblemFields(new Set(answer.fields.flatMap((entry) => (entry.field ? [entry.field] : []))));
    } catch (error) {
      setFailure(error);
    }
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
        setNotice(undefined);
        void refreshBatch();
        return true;
      } catch (error) {
        setFailure(error);
        return false;
      }
    },
    [api, pages, refreshBatch],
  );

  /** The batch changed under the grid (find and replace, undo, redo): its rows are read again where they are. */
  function batchChanged() {
    pages.refresh();
    void refreshBatch();
  }

  async function step(direction: 'undo' | 'redo') {
    if (busy || !batch?.[direction]) return;
    setBusy(direction);
    try {
      const result = await api.call(direction === 'undo' ? 'batches.undo' : 'batches.redo', { batchId });
      setNotice(stepMessage(direction, result.step));
      setFailure(undefined);
      batchChanged();
    } catch (error) {
      setFailure(error);
    } finally {
      setBusy(undefined);
    }
  }

  /**
   * F8 / Shift+F8: the next (previous) problem cell after the focused one: in the focused order if it has one
   * that way, else in the nearest order with a problem (asked of the core, so orders not loaded count too). The
   * grid scrolls that order in, then the cell sideways, and focuses it.
   */
  function goToProblem(direction: 'next' | 'previous') {
    moves.current = moves.current.then(() => moveToProblem(direction)).catch((error: unknown) => setFailure(error));
  }

  async function moveToProblem(direction: 'next' | 'previous') {
    const from = focusRef.current;
    const current = pages.get(from.index);
    const here = current ? problemInOrder(problemCells(current, columns), from, direction) : undefined;
    if (here) {
      gridRef.current?.goTo({ index: from.index, ...here });
      setNotice(undefined);
      return;
    }
    setBusy('problem');
    try {
      const found = await findProblemOrder(direction, current, from.index);
      if (found === undefined) {
        setNotice(direction === 'next' ? 'No problem after this cell.' : 'No problem before this cell.');
        return;
      }
      await pages.ensure(found, found);
      const order = pages.get(found);
      const cell = order ? problemInOrder(problemCells(order, columns), undefined, direction) : undefined;
      gridRef.current?.goTo({ index: found, ...(cell ?? { line: 0, col: 0 }) });
      setNotice(undefined);
    } catch (error) {
      setFailure(error);
    } finally {
      setBusy(undefined);
    }
  }

  /** The list index of the nearest order with a problem beyond the focused one, or undefined. */
  async function findProblemOrder(
    direction: 'next' | 'previous',
    current: StagedOrderView | undefined,
    fromIndex: number,
  ): Promise<number | undefined> {
    if (filter === 'warnings') {
      // The service-warnings list is the enrichment's order: look through the orders loaded around the focus.
      const step = direction === 'next' ? 1 : -1;
      for (let index = fromIndex + step; index >= 0 && index < (pages.total ?? 0); index += step) {
        const order = pages.peek(index);
        if (!order) return undefined;
        if (order.problems.length > 0) return index;
      }
      return undefined;
    }
    const fromPosition = current ? current.position : direction === 'next' ? 0 : Number.MAX_SAFE_INTEGER;
    const { found } = await api.call('batches.findProblem', { batchId, fromPosition, direction });
    if (!found) return undefined;
    return filter === 'problems' ? found.problemIndex : found.position - 1;
  }

  function onKeyDown(event: KeyboardEvent) {
    if (event.key === 'F8') {
      event.preventDefault();
      goToProblem(event.shiftKey ? 'previous' : 'next');
      return;
    }
    const command = (event.ctrlKey || event.metaKey) && !event.altKey;
    if (!command || typingIn(event.target)) return;
    const key = event.key.toLowerCase();
    if (key === 'z' || key === 'y') {
      event.preventDefault();
      void step(key === 'y' || event.shiftKey ? 'redo' : 'undo');
    }
  }

  // The keys work wherever the focus is in the preview, and also when it is on nothing (the page itself, after a
  // click on its background or a window switch): one listener on the window, reading the latest handler.
  const keyHandler = useRef(onKeyDown);
  useEffect(() => {
    keyHandler.current = onKeyDown;
  });
  useEffect(() => {
    const listener = (event: KeyboardEvent) => {
      const section = sectionRef.current;
      const target = event.target;
      const here = target === document.body || (target instanceof Node && section?.contains(target) === true);
      if (!here || event.defaultPrevented || document.querySelector('dialog[open]')) return;
      keyHandler.current(event);
    };
    window.addEventListener('keydown', listener);
    return () => window.removeEventListener('keydown', listener);
  }, []);

  async function accept() {
    setBusy('accept');
    try {
      // Only what is on screen: a live intake may be appending to this batch meanwhile (those stay for review).
      setAccepted(await api.call('batches.accept', { batchId, ...(counts ? { seen: counts.total } : {}) }));
      setFailure(undefined);
      setAsking(undefined);
      setGeneration((g) => g + 1);
    } catch (error) {
      setFailure(error);
      setAsking(undefined);
    } finally {
      setBusy(undefined);
    }
  }

  async function discard() {
    setBusy('discard');
    try {
      const result = await api.call('batches.discard', { batchId });
      setNotice(`Discarded: ${plural(result.discarded, 'staged order')} will not be sent. The log records it.`);
      setFailure(undefined);
      setAsking(undefined);
      await refreshBatch();
    } catch (error) {
      setFailure(error);
      setAsking(undefined);
    } finally {
      setBusy(undefined);
    }
  }

  async function exportErrors() {
    if (!batch) return;
    setBusy('export');
    try {
      const result = await api.call('batches.exportErrors', { batchId });
      if (result.outcome === 'cancelled') return;
      if (result.outcome === 'download') startExportDownload(result);
      setNotice(
        `Exported ${plural(result.orders, 'order')} with errors to ${result.fileName}, with their original rows and an errors column.`,
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

  function toggleDetails() {
    const next = !showDetails;
    setShowDetails(next);
    try {
      window.localStorage.setItem(DETAILS_KEY, next ? 'shown' : 'hidden');
    } catch {
      // Not remembered; shown as chosen for now.
    }
  }

  const counts = batch?.counts;
  const staying = counts ? counts.staged - counts.valid : 0;
  // Of those, the messages that are no order at all (an ADT among the orders): no fix here mends them.
  const notOrders = counts?.notOrders ?? 0;
  const fixable = staying - notOrders;
  const stayingNote = [
    fixable ? `${plural(fixable, 'order')} with errors will stay here to fix.` : '',
    notOrders ? notOrdersSentence(notOrders) : '',
  ]
    .filter(Boolean)
    .join(' ');
  const discarded = batch?.discardedAt != null;
  const local = environment.kind === 'local-sandbox';
  const name = batch?.sourceFileName ?? `batch ${batchId}`;
  const focusedColumn = columns[Math.min(focus.col, columns.length - 1)];

  return (
    <section ref={sectionRef} aria-labelledby="preview-heading" className="preview">
      <div className="panel">
        <div className="panel-head preview-head">
          <h3 id="preview-heading" tabIndex={-1}>
            Preview: {name}
          </h3>
          {counts ? (
            <p role="status" aria-label="Batch counts" className="preview-counts">
              {plural(counts.total, 'order')}:{' '}
              <span className="good">✓ {counts.valid.toLocaleString('en-GB')} valid</span>
              {' · '}
              <span className={counts.invalid ? 'bad' : undefined}>
                ✕ {invalidInWords(counts.invalid, counts.notOrders, 'with errors')}
              </span>
              {counts.accepted ? ` · → ${counts.accepted.toLocaleString('en-GB')} accepted` : ''}
            </p>
          ) : null}
          <div className="preview-decision">
            {counts && !discarded && counts.valid > 0 ? (
              <>
                <button
                  type="button"
                  onClick={() => (local ? void accept() : setAsking('accept'))}
                  disabled={busy === 'accept'}
                  aria-describedby="accept-note"
                >
                  {busy === 'accept' ? 'Accepting…' : `Accept ${plural(counts.valid, 'valid order')}`}
                </button>
                <span id="accept-note" className="hint">
                  {stayingNote}
                </span>
              </>
            ) : counts && !discarded ? (
              <span role="status" className="hint">
                {counts.staged === 0
                  ? `✓ Every order of this batch is accepted (${plural(counts.accepted, 'order')}).`
                  : fixable === 0
                    ? `Nothing here can be accepted: ${notOrdersSentence(notOrders)} Discard the batch once you have read why.`
                    : `No order is ready to accept: fix the errors, or discard the batch.${notOrders ? ` ${notOrdersSentence(notOrders)}` : ''}`}
              </span>
            ) : null}
            {counts && !discarded && counts.staged > 0 ? (
              <button
                type="button"
                className="secondary"
                onClick={() => setAsking('discard')}
                disabled={busy === 'discard'}
              >
                Discard batch…
              </button>
            ) : null}
          </div>
        </div>
        {discarded ? (
          <p role="status" className="message message-discarded">
            Discarded {formatDateTime(batch.discardedAt)}: its {plural(counts?.staged ?? 0, 'staged order')} will not be
            sent{counts?.accepted ? `; the ${plural(counts.accepted, 'order')} accepted before are in the outbox` : ''}.
          </p>
        ) : null}
        <div className="preview-toolbar" role="group" aria-label="Batch tools">
          {/* Two alternatives, not combined: ticking one unticks the other. */}
          <label className="check">
            <input
              type="checkbox"
              checked={filter === 'problems'}
              onChange={(event) => void chooseFilter(event.target.checked ? 'problems' : 'all')}
            />{' '}
            Only orders with problems
          </label>
          <label className="check">
            <input
              type="checkbox"
              checked={filter === 'warnings'}
              onChange={(event) => void chooseFilter(event.target.checked ? 'warnings' : 'all')}
            />{' '}
            Only orders with service warnings <span aria-hidden="true">⚑</span>
          </label>
          <span className="toolbar-group" role="group" aria-label="Problems">
            <button
              type="button"
              className="secondary"
              onClick={() => goToProblem('previous')}
              aria-keyshortcuts="Shift+F8"
            >
              <span aria-hidden="true">↑ </span>Previous problem
            </button>
            <button type="button" className="secondary" onClick={() => goToProblem('next')} aria-keyshortcuts="F8">
              <span aria-hidden="true">↓ </span>Next problem
            </button>
          </span>
          {!discarded ? (
            <span className="toolbar-group" role="group" aria-label="Changes">
              <button
                type="button"
                className="secondary changes-undo"
                onClick={() => void step('undo')}
                disabled={!batch?.undo || busy === 'undo'}
                aria-keyshortcuts="Control+Z"
                aria-describedby={batch?.undo ? `${gridId}-undo-next` : undefined}
              >
                <span aria-hidden="true">↶ </span>Undo
              </button>
              <button
                type="button"
                className="secondary changes-redo"
                onClick={() => void step('redo')}
                disabled={!batch?.redo || busy === 'redo'}
                aria-keyshortcuts="Control+Shift+Z"
                aria-describedby={batch?.redo ? `${gridId}-redo-next` : undefined}
              >
                <span aria-hidden="true">↷ </span>Redo
              </button>
              {/* What each would take back, shown on focus as well as hover (a title showed it on hover only). */}
              {batch?.undo ? (
                <span id={`${gridId}-undo-next`} className="changes-next changes-next-undo">
                  Undo {describeStep(batch.undo)}
                </span>
              ) : null}
              {batch?.redo ? (
                <span id={`${gridId}-redo-next`} className="changes-next changes-next-redo">
                  Redo {describeStep(batch.redo)}
                </span>
              ) : null}
            </span>
          ) : null}
          <button
            type="button"
            className="secondary details-toggle"
            aria-expanded={showDetails}
            aria-controls={detailsId}
            onClick={toggleDetails}
          >
            {showDetails ? 'Hide details' : 'Show details'}
          </button>
        </div>
        <div className="preview-toolbar" role="group" aria-label="Sending and service">
          {batch && !discarded ? (
            <label>
              Send as{' '}
              <select
                value={batch.route}
                disabled={busy === 'route'}
                // The service call, for whoever needs it: on hover and read after the choice, not in the way.
                title={ROUTE_TEXT[batch.route].serviceCall}
                onChange={(event) => void changeRoute(event.target.value as RouteName)}
              >
                {(['v1', 'v2', ...(batch.kind === 'hl7' ? (['hl7'] as const) : [])] as RouteName[]).map((route) => (
                  <option key={route} value={route}>
                    {ROUTE_TEXT[route].label}
                  </option>
                ))}
              </select>
            </label>
          ) : null}
          <button
            type="button"
            className="secondary"
            onClick={() => void exportErrors()}
            disabled={fixable === 0 || busy === 'export'}
            title={fixable === 0 && notOrders > 0 ? 'No order here that a fix can mend' : undefined}
          >
            {busy === 'export' ? 'Exporting…' : 'Export errors as CSV'}
          </button>
          {!discarded ? <EnrichmentBar environment={environment} control={enrichment} /> : null}
        </div>
        <p className="hint preview-keys">
          F8 / Shift+F8: next / previous problem · Ctrl+Z / Ctrl+Shift+Z (⌘ on a Mac): undo / redo · Enter edits and
          saves a cell, Escape cancels · ✕ error, ⚠ warning, ⚑ service warning, explained on focus or hover
        </p>
        {filter === 'warnings' && filteredTotal !== undefined ? (
          <p role="status" className="hint">
            {filteredTotal > 0
              ? `Showing ${plural(filteredTotal, 'order')} with service warnings (out of stock, unknown code, courier not listed).`
              : checked
                ? 'No staged order has service warnings.'
                : 'No service warnings yet: check products and stock first.'}
          </p>
        ) : null}
        {filter === 'problems' && problemFields ? (
          <p role="status" className="hint">
            {problemColumnsText(problemFields, columns.length - 4, allColumns)}
            <button type="button" className="secondary" onClick={() => setAllColumns(!allColumns)}>
              {allColumns ? 'Show only the columns with problems' : 'Show every column'}
            </button>
          </p>
        ) : null}
        {notice ? (
          <p role="status" className="preview-notice">
            {notice}
          </p>
        ) : null}
        {accepted ? (
          <p role="status" className="message" ref={acceptedRef} tabIndex={-1}>
            ✓ Accepted {plural(accepted.accepted, 'order')} into the outbox for {environment.name}
            {accepted.cancelled ? ` and ${plural(accepted.cancelled, 'cancel request')}` : ''};{' '}
            {plural(accepted.staying, 'order')} stay{accepted.staying === 1 ? 's' : ''} staged
            {accepted.arrived
              ? `, ${accepted.arrived === 1 ? 'one of them' : `${accepted.arrived.toLocaleString('en-GB')} of them`} added to the batch while you reviewed it (not accepted: review ${accepted.arrived === 1 ? 'it' : 'them'} first)`
              : ''}
            . <a href="#/submissions">Watch them being sent</a>
          </p>
        ) : null}
        {failure ? <ErrorMessage error={failure} /> : null}
        {pagesError ? <ErrorMessage error={pagesError} /> : null}
        <div className={`preview-body${showDetails ? '' : ' preview-body-wide'}`}>
          <PreviewGrid
            ref={gridRef}
            key={`${filter}-${generation}-${warningsVersion}`}
            gridId={gridId}
            label={`Orders in ${name}`}
            pages={pages}
            columns={columns}
            focus={focus}
            onFocus={setFocus}
            onEdit={onEdit}
            marks={checked ? marks : undefined}
            reveal={filter === 'all' ? reveal : undefined}
            readOnly={discarded}
          />
          {showDetails ? (
            <CellDetails
              id={detailsId}
              order={focusedOrder}
              line={focus.line}
              column={focusedColumn}
              onEdit={onEdit}
              readOnly={discarded}
            >
              {focusedOrder ? (
                <ServiceCheck batchId={batchId} order={focusedOrder} line={focus.line} version={enrichment.version} />
              ) : null}
            </CellDetails>
          ) : null}
        </div>
        {batch && !discarded ? <FindReplace batch={batch} onReplaced={batchChanged} /> : null}
      </div>
      {asking === 'accept' && counts ? (
        <ConfirmDialog
          title={`Accept ${plural(counts.valid, 'order')} into ${environment.name}?`}
          confirmLabel={
            busy === 'accept' ? 'Accepting…' : `Accept ${plural(counts.valid, 'order')} into ${environment.name}`
          }
          cancelLabel="Not now"
          busy={busy === 'accept'}
          onConfirm={() => void accept()}
          onCancel={() => setAsking(undefined)}
        >
          <p>
            {environment.name} is not the local sandbox: the {plural(counts.valid, 'order')} will be sent to{' '}
            <code>{new URL(environment.apiBaseUrl).host}</code> as real prescription orders, each once. Orders can be
            cancelled afterwards only while the pharmacy has not dispatched them.
          </p>
          {stayingNote ? <p>{stayingNote}</p> : null}
        </ConfirmDialog>
      ) : null}
      {asking === 'discard' && counts ? (
        <ConfirmDialog
          title={`Discard ${name}?`}
          confirmLabel={busy === 'discard' ? 'Discarding…' : 'Discard batch'}
          cancelLabel="Keep it"
          busy={busy === 'discard'}
          onConfirm={() => void discard()}
          onCancel={() => setAsking(undefined)}
        >
          <p>
            Its {plural(counts.staged, 'staged order')} will never be sent, and cannot be edited or accepted any more.
            {counts.accepted
              ? ` The ${plural(counts.accepted, 'order')} already accepted stay in the outbox (cancel them on the Orders screen).`
              : ''}{' '}
            The log records that you discarded it.
          </p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}
