import { useVirtualizer } from '@tanstack/react-virtual';
import {
  memo,
  useEffect,
  useImperativeHandle,
  useLayoutEffect,
  useRef,
  useState,
  useSyncExternalStore,
  type KeyboardEvent,
  type MouseEvent,
  type PointerEvent,
  type Ref,
} from 'react';
import type { EnrichmentWarning } from '../../../../shared/enrichment-views.js';
import type { BatchView, StagedOrderView } from '../../../../shared/staging-views.js';
import type { BatchPages } from './batch-pages.js';
import { countPhrase, placeProblems, worstSeverity, type PlacedProblems } from './cell-problems.js';
import { useFitToWindow } from './fit-height.js';
import { cellId, clampCell, moveFocus, type GridCell, type GridShape } from './grid-focus.js';
import {
  columnWidths,
  faultyFields,
  FROZEN_COLUMNS,
  problemSummary,
  type GridColumn,
  type Measure,
} from './grid-columns.js';
import { concretePath, displayValue, fieldOfPath, itemCount, valueAt, type OrderField } from './order-fields.js';
import type { ServiceMarks } from './service-marks.js';
import { placeTooltip } from './tooltip-placement.js';

/** Height of one item line, px (CSS keeps `.grid-line` at this height). */
export const LINE_HEIGHT = 32;
const HEADER_HEIGHT = 36;

/** What the screen can ask of the grid: move the focus to a cell (scrolling its row, then its column, into view). */
export interface GridHandle {
  goTo(cell: GridCell): void;
}

interface Props {
  gridId: string;
  label: string;
  pages: BatchPages<BatchView>;
  /** The columns shown, in order (grid-columns.ts); the first FROZEN_COLUMNS stay in view sideways. */
  columns: readonly GridColumn[];
  focus: GridCell;
  onFocus: (cell: GridCell) => void;
  /** Saves one cell's new text; resolves true when saved (the grid then leaves edit mode). */
  onEdit: (order: StagedOrderView, path: string, value: string) => Promise<boolean>;
  /** Service warnings of the loaded orders (after a service check), marked apart from the problems. */
  marks?: ServiceMarks | undefined;
  /** An order (its place in the list) to scroll to and focus once the list is in, e.g. back from Lookups. */
  reveal?: number | undefined;
  /** Nothing can be edited (a discarded batch). */
  readOnly?: boolean;
  ref?: Ref<GridHandle>;
}

const noMarks = { subscribe: () => () => undefined, getVersion: () => 0 };

/** A service warning in a cell's tooltip: said to be the service's, so it is never taken for a problem. */
const serviceLine = (warning: EnrichmentWarning) => `Service warning: ${warning.text}`;

const byField = new WeakMap<EnrichmentWarning[], Map<string | undefined, EnrichmentWarning[]>>();
/** An order's service warnings by body path, worked out once per list of warnings (not once per cell). */
function warningsByField(service: EnrichmentWarning[]): Map<string | undefined, EnrichmentWarning[]> {
  let found = byField.get(service);
  if (!found) {
    found = new Map();
    for (const warning of service) found.set(warning.field, [...(found.get(warning.field) ?? []), warning]);
    byField.set(service, found);
  }
  return found;
}

/** The cell a click landed in, from the data attributes every cell carries (one listener for the whole grid). */
function cellAt(target: EventTarget): GridCell | undefined {
  if (!(target instanceof Element)) return undefined;
  const cell = target.closest<HTMLElement>('[data-col]');
  const order = cell?.closest<HTMLElement>('[data-index]');
  if (!cell || !order) return undefined;
  const index = Number(order.dataset.index);
  const line = Number(cell.dataset.line);
  const col = Number(cell.dataset.col);
  return [index, line, col].every(Number.isInteger) ? { index, line, col } : undefined;
}

const placed = new WeakMap<StagedOrderView, PlacedProblems>();
/** Problems per cell, worked out once per order object (a replaced order is a new object). */
function problemsOf(order: StagedOrderView): PlacedProblems {
  let found = placed.get(order);
  if (!found) {
    found = placeProblems(order.problems);
    placed.set(order, found);
  }
  return found;
}

function columnField(columns: readonly GridColumn[], col: number): OrderField | undefined {
  const column = columns[col];
  return column?.kind === 'field' ? column.field : undefined;
}

const summaries = new WeakMap<StagedOrderView, string>();
/** The problems column's text of an order, worked out once per order object. */
function summaryOf(order: StagedOrderView): string {
  let found = summaries.get(order);
  if (found === undefined) {
    found = problemSummary(order);
    summaries.set(order, found);
  }
  return found;
}

/** Text widths in the font of an element of the grid (a cell, a header), through a canvas (no layout). */
function canvasMeasure(grid: HTMLElement, selector: string): Measure {
  const style = getComputedStyle(grid.querySelector(selector) ?? grid);
  const context = document.createElement('canvas').getContext('2d');
  if (!context) return (text) => text.length * 9;
  context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
  // A pixel of slack per word: canvas and layout round differently.
  return (text) => context.measureText(text).width + 2;
}

/** The cell (an element with `data-col`) an event happened in. */
const cellElement = (target: EventTarget | null): HTMLElement | null =>
  target instanceof Element ? target.closest<HTMLElement>('[data-col]') : null;

/**
 * The staged orders of a batch as a virtualised grid: one line per prescribed item, the order's own fields on its
 * first line. Only the rows in view (plus a margin) exist in the DOM and only their pages are fetched, so 100,000
 * rows scroll like 100. A problem marks its exact cell with an icon and text (never colour alone), its message
 * shows on hover and focus and is the cell's accessible description. Arrows move, Enter edits, Enter or leaving the cell saves (Tab: and moves right), Escape cancels.
 * Service warnings (out of stock, unknown code or courier) get their own mark, ⚑, and say they are the service's.
 * An order's lines re-render only when that order, its marks, the focus within it or its edit change (not at each
 * scroll frame or page arrival), and clicks are handled once for the grid, not by a handler per cell.
 */
export function PreviewGrid({
  gridId,
  label,
  pages,
  columns,
  focus,
  onFocus,
  onEdit,
  marks,
  reveal,
  readOnly = false,
  ref,
}: Props) {
  const version = useSyncExternalStore(pages.subscribe, pages.getVersion);
  useSyncExternalStore((marks ?? noMarks).subscribe, (marks ?? noMarks).getVersion);
  const count = pages.total ?? 0;
  const scrollRef = useRef<HTMLDivElement>(null);
  useFitToWindow(scrollRef);
  const tipRef = useRef<HTMLDivElement>(null);
  /** The cell the tooltip is for (hovered, else focused), and the one the pointer is over. */
  const tipCell = useRef<HTMLElement | null>(null);
  const hovered = useRef<HTMLElement | null>(null);
  /**
   * The cell to focus once it is rendered. The cell itself, not a flag read against the `focus` prop: the
   * virtualiser's scroll can render the grid before the new focus reaches it, and that render must not take it.
   */
  const wantFocus = useRef<GridCell>(undefined);
  /** Column widths, measured for this set of columns (the problems filter can change them). */
  const [sizing, setSizing] = useState<{ columns: readonly GridColumn[]; widths: number[] }>();
  const widths = sizing?.columns === columns ? sizing.widths : undefined;
  const [editing, setEditingState] = useState<Editing | undefined>();
  /**
   * The edit as of the last change, read by the editor's blur: a blur can come while React removes or disables the
   * input (Escape, Enter), before a render would have shown the handler the new state.
   */
  const editingNow = useRef<Editing | undefined>(undefined);
  const setEditing = (next: Editing | undefined | ((current: Editing | undefined) => Editing | undefined)) => {
    editingNow.current = typeof next === 'function' ? next(editingNow.current) : next;
    setEditingState(editingNow.current);
  };
  const averageLines = useRef(1);

  const linesOf = (index: number) => {
    const order = pages.get(index);
    return order ? itemCount(order.body) : 1;
  };

  // The virtualiser is a mutable object by design; this component re-renders on its changes, which is the point.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scrollRef.current,
    estimateSize: (index) => {
      const order = pages.get(index);
      return (order ? itemCount(order.body) : averageLines.current) * LINE_HEIGHT;
    },
    paddingStart: HEADER_HEIGHT,
    scrollPaddingStart: HEADER_HEIGHT,
    overscan: 4,
  });
  const items = virtualizer.getVirtualItems();
  const first = items[0]?.index ?? 0;
  const last = items[items.length - 1]?.index ?? 0;

  // Fetch what is in view (and a few orders either side) as the range moves; the latest range wins.
  useEffect(() => {
    pages.want(Math.max(0, first - 10), last + 10);
  }, [pages, first, last]);

  // Service marks for the orders on screen (reads stored answers; orders already read are skipped at once).
  useEffect(() => {
    if (!marks) return;
    const shown = items.map((item) => pages.peek(item.index)).filter((order) => order !== undefined);
    marks.want(shown);
  });

  // Once real orders are in, estimate unloaded ones by the batch's average items per order, so the scrollbar
  // is near the truth from the start instead of growing as pages arrive.
  const averaged = useRef(false);
  useLayoutEffect(() => {
    if (averaged.current) return;
    const loaded = pages.loaded();
    if (loaded.length === 0) return;
    averaged.current = true;
    const average = loaded.reduce((sum, order) => sum + itemCount(order.body), 0) / loaded.length;
    if (average > 1) {
      averageLines.current = average;
      virtualizer.measure();
    }
  });

  // Columns sized to their content, once: from the first orders loaded (a dm+d code is never cut, whatever comes
  // later; a longer value further down is cut with an ellipsis and shown whole in the details).
  useLayoutEffect(() => {
    if (widths || !scrollRef.current) return;
    const loaded = pages.loaded();
    if (loaded.length === 0 && pages.total !== 0) return;
    setSizing({
      columns,
      widths: columnWidths(
        columns,
        loaded.slice(0, 200),
        canvasMeasure(scrollRef.current, '.grid-body .grid-cell'),
        summaryOf,
        canvasMeasure(scrollRef.current, '.grid-head .grid-cell'),
      ),
    });
  }, [widths, pages, columns, version]);

  const shape: GridShape = { count, columns: columns.length, linesOf, pageOrders: 10 };

  // Focus follows the keyboard: once the focused cell is rendered (after a scroll brings it in), focus it, then
  // bring it into view sideways too (the scroll padding keeps it clear of the frozen columns and the header).
  useEffect(() => {
    const target = wantFocus.current;
    if (!target || editing) return;
    const element = document.getElementById(cellId(gridId, target));
    if (element) {
      wantFocus.current = undefined;
      element.focus({ preventScroll: true });
      element.scrollIntoView({ block: 'nearest', inline: 'nearest' });
    }
  });

  useImperativeHandle(ref, () => ({ goTo: (cell: GridCell) => go(cell) }));

  /**
   * One tooltip for the whole grid, `position: fixed` outside it, so no scrolling box cuts it and it is kept
   * inside the window (tooltip-placement.ts). Its text is the cell's description (a hidden element the cell's
   * aria-describedby names, which is what a screen reader reads), shown for the cell under the pointer, else the
   * focused one. Set directly on the element: hovering re-renders nothing.
   */
  function placeTip() {
    const tip = tipRef.current;
    const cell = tipCell.current;
    const grid = scrollRef.current;
    if (!tip || !cell || !grid || !cell.isConnected) {
      if (tip) tip.hidden = true;
      return;
    }
    const box = cell.getBoundingClientRect();
    const view = grid.getBoundingClientRect();
    const outside =
      box.bottom <= view.top + HEADER_HEIGHT ||
      box.top >= view.bottom ||
      box.right <= view.left ||
      box.left >= view.right;
    tip.style.visibility = outside ? 'hidden' : '';
    if (outside) return;
    const place = placeTooltip(
      box,
      { width: tip.offsetWidth, height: tip.offsetHeight },
      {
        width: document.documentElement.clientWidth,
        height: document.documentElement.clientHeight,
      },
    );
    tip.style.left = `${place.left}px`;
    tip.style.top = `${place.top}px`;
  }

  function showTip(cell: HTMLElement | null) {
    const tip = tipRef.current;
    if (!tip) return;
    const describedBy = cell?.getAttribute('aria-describedby');
    const text = describedBy ? document.getElementById(describedBy)?.textContent : undefined;
    if (!cell || !text) {
      tipCell.current = null;
      tip.hidden = true;
      return;
    }
    tipCell.current = cell;
    tip.textContent = text;
    tip.className = `grid-tip${cell.classList.contains('cell-error') ? ' grid-tip-error' : ''}`;
    tip.hidden = false;
    placeTip();
  }

  const focusedCell = () => {
    const active = document.activeElement;
    return active instanceof HTMLElement && scrollRef.current?.contains(active) ? cellElement(active) : null;
  };

  // After a render (an edit, a page, a scroll), the tooltip follows its cell: new text, new place, or gone.
  useEffect(() => {
    if (tipCell.current) showTip(hovered.current ?? focusedCell());
  });
  useEffect(() => {
    const follow = () => {
      if (tipCell.current) placeTip();
    };
    window.addEventListener('scroll', follow, { capture: true, passive: true });
    window.addEventListener('resize', follow, { passive: true });
    return () => {
      window.removeEventListener('scroll', follow, { capture: true });
      window.removeEventListener('resize', follow);
    };
  }, []);

  // Once, as soon as the list is long enough: the order's first cell gets focus (so its details show).
  const revealed = useRef<number>(undefined);
  useEffect(() => {
    if (reveal === undefined || revealed.current === reveal || reveal >= count) return;
    revealed.current = reveal;
    go({ index: reveal, line: 0, col: 0 });
  });

  function go(cell: GridCell) {
    const next = clampCell(cell, shape);
    wantFocus.current = next;
    onFocus(next);
    virtualizer.scrollToIndex(next.index, { align: 'auto' });
  }

  function startEdit(cell: GridCell) {
    const field = columnField(columns, cell.col);
    const order = pages.get(cell.index);
    if (readOnly || !field || !order || order.state !== 'staged' || order.orderControl !== 'NW') return;
    const itemIndex = field.level === 'item' ? cell.line : 0;
    if (field.level === 'item' && itemIndex >= itemCount(order.body)) return;
    const value = displayValue(valueAt(order.body, concretePath(field, itemIndex)));
    setEditing({ cell, value, original: value, saving: false });
  }

  /**
   * Saves the edit. `refocus`: the cell takes the focus back (Enter); not when the admin has moved on (a click
   * elsewhere, another screen), whose focus stays where they put it.
   */
  async function commitEdit(refocus = true, move?: 'ArrowRight' | 'ArrowLeft') {
    const editing = editingNow.current;
    if (!editing || editing.saving) return;
    const field = columnField(columns, editing.cell.col);
    const order = pages.get(editing.cell.index);
    if (!field || !order) return setEditing(undefined);
    // Nothing typed (Tab through a cell): no edit in the order's history or the undo list.
    const unchanged = editing.value === editing.original;
    if (!unchanged) setEditing({ ...editing, saving: true });
    const saved =
      unchanged ||
      (await onEdit(order, concretePath(field, field.level === 'item' ? editing.cell.line : 0), editing.value));
    if (saved) {
      setEditing(undefined);
      // Tab and Shift+Tab save and go to the next cell sideways, as in a spreadsheet (not out of the grid).
      if (move) go(moveFocus(editing.cell, move, shape) ?? editing.cell);
      else if (refocus) wantFocus.current = editing.cell;
    } else {
      setEditing((current) => (current ? { ...current, saving: false } : current));
    }
  }

  function onKeyDown(event: KeyboardEvent<HTMLDivElement>) {
    if (editing) return;
    if (event.key === 'Enter' || event.key === 'F2') {
      event.preventDefault();
      startEdit(focus);
      return;
    }
    const next = moveFocus(focus, event.key, shape, event.ctrlKey || event.metaKey);
    if (next) {
      event.preventDefault();
      go(next);
    }
  }

  const sized = widths ?? columns.map((column) => (column.kind === 'field' ? column.field.width : 120));
  const width = sized.reduce((sum, w) => sum + w, 0);
  const template = sized.map((w) => `${w}px`).join(' ');
  const frozen = sized.slice(0, FROZEN_COLUMNS);
  const focusCell = clampCell(focus, shape);

  return (
    <>
      <div
        ref={scrollRef}
        role="grid"
        aria-label={label}
        aria-rowcount={-1}
        aria-colcount={columns.length}
        aria-busy={pages.total === undefined}
        aria-readonly={readOnly || undefined}
        className="preview-grid"
        style={{
          ['--grid-columns' as string]: template,
          ['--frozen-1' as string]: `${frozen[0] ?? 0}px`,
          ['--frozen-2' as string]: `${(frozen[0] ?? 0) + (frozen[1] ?? 0)}px`,
          scrollPaddingLeft: `${frozen.reduce((sum, w) => sum + w, 0)}px`,
        }}
        onKeyDown={onKeyDown}
        onClick={(event: MouseEvent) => {
          const cell = cellAt(event.target);
          if (cell && !editing) go(cell);
        }}
        onDoubleClick={(event: MouseEvent) => {
          const cell = cellAt(event.target);
          if (cell) startEdit(cell);
        }}
        onPointerOver={(event: PointerEvent) => {
          const cell = cellElement(event.target);
          if (cell === hovered.current) return;
          hovered.current = cell?.hasAttribute('aria-describedby') ? cell : null;
          showTip(hovered.current ?? focusedCell());
        }}
        onPointerLeave={() => {
          hovered.current = null;
          showTip(focusedCell());
        }}
        onFocus={(event) => {
          if (!hovered.current) showTip(cellElement(event.target));
        }}
        onBlur={(event) => {
          if (!event.currentTarget.contains(event.relatedTarget) && !hovered.current) showTip(null);
        }}
        onScroll={() => {
          if (tipCell.current) placeTip();
        }}
      >
        <div role="rowgroup" className="grid-head" style={{ width }}>
          <div role="row" className="grid-line grid-header-line">
            {columns.map((column) => (
              <div
                role="columnheader"
                className="grid-cell"
                key={column.key}
                title={column.kind === 'field' ? column.field.column : undefined}
              >
                {column.label}
              </div>
            ))}
          </div>
        </div>
        <div
          role="rowgroup"
          className="grid-body"
          style={{ height: virtualizer.getTotalSize() - HEADER_HEIGHT, width }}
        >
          {items.map((item) => {
            const order = pages.get(item.index);
            return (
              <div
                key={item.key}
                data-index={item.index}
                ref={virtualizer.measureElement}
                className="grid-order"
                style={{ transform: `translateY(${item.start - HEADER_HEIGHT}px)` }}
              >
                {order ? (
                  <OrderLines
                    gridId={gridId}
                    columns={columns}
                    index={item.index}
                    order={order}
                    service={marks?.warnings(order)}
                    focusLine={focusCell.index === item.index ? focusCell.line : -1}
                    focusCol={focusCell.index === item.index ? focusCell.col : -1}
                    editor={
                      editing?.cell.index === item.index
                        ? {
                            line: editing.cell.line,
                            col: editing.cell.col,
                            value: editing.value,
                            saving: editing.saving,
                            onChange: (value) => setEditing((current) => (current ? { ...current, value } : current)),
                            onCommit: (move) => void commitEdit(true, move),
                            onCancel: () => {
                              setEditing(undefined);
                              wantFocus.current = editing.cell;
                            },
                            onLeave: () => {
                              // Leaving the cell keeps what was typed, as a spreadsheet does: an edit must not
                              // vanish because the admin clicked elsewhere or opened another screen.
                              const now = editingNow.current;
                              if (!now || now.saving) return;
                              void commitEdit(false);
                            },
                          }
                        : undefined
                    }
                  />
                ) : (
                  <div role="row" className="grid-line grid-loading" style={{ height: item.size }}>
                    <div role="gridcell" className="grid-cell">
                      Loading…
                    </div>
                  </div>
                )}
              </div>
            );
          })}
        </div>
      </div>
      <div ref={tipRef} className="grid-tip" aria-hidden="true" hidden />
    </>
  );
}

/** The cell being edited, what it held when the edit began, and whether it is being saved. */
interface Editing {
  cell: GridCell;
  value: string;
  original: string;
  saving: boolean;
}

/** The cell being edited, only for the order it is in (so no other order's lines re-render as it is typed). */
interface Editor {
  line: number;
  col: number;
  value: string;
  saving: boolean;
  onChange: (value: string) => void;
  /** Saves; `move`: then to the next cell that way (Tab, Shift+Tab). */
  onCommit: (move?: 'ArrowRight' | 'ArrowLeft') => void;
  onCancel: () => void;
  /** The focus left the input (not the window): save what was typed. */
  onLeave: () => void;
}

interface LinesProps {
  gridId: string;
  columns: readonly GridColumn[];
  index: number;
  order: StagedOrderView;
  /** The order's service warnings, once read. */
  service: EnrichmentWarning[] | undefined;
  /** The focused cell's line and column when it is in this order, else -1. */
  focusLine: number;
  focusCol: number;
  editor: Editor | undefined;
}

/** One order's item lines; memoised: its props change only when what it shows does. */
const OrderLines = memo(function OrderLines({
  gridId,
  columns,
  index,
  order,
  service,
  focusLine,
  focusCol,
  editor,
}: LinesProps) {
  const problems = problemsOf(order);
  const warned = service && service.length > 0 ? warningsByField(service) : undefined;
  // Warnings on fields without a column (a product id) are told on the order's own cell.
  const offGrid = service?.filter((warning) => !fieldOfPath(warning.field)?.inGrid) ?? [];
  const lines = itemCount(order.body);
  const rows = [];
  for (let line = 0; line < lines; line += 1) {
    const cells = [];
    for (let col = 0; col < columns.length; col += 1) {
      const id = cellId(gridId, { index, line, col });
      const focused = focusLine === line && focusCol === col;
      const common = { id, role: 'gridcell', tabIndex: focused ? 0 : -1, 'data-line': line, 'data-col': col } as const;
      const column = columns[col]!;
      if (column.kind === 'order') {
        cells.push(
          <OrderCell key={col} common={common} line={line} order={order} problems={problems} service={service} />,
        );
        continue;
      }
      if (column.kind === 'problems') {
        cells.push(
          <SummaryCell
            key={col}
            common={common}
            line={line}
            order={order}
            problems={problems}
            offGrid={offGrid}
            id={id}
          />,
        );
        continue;
      }
      const field = column.field;
      // Order-level fields show on the order's first line; later lines leave them blank (same order).
      const shown = field.level === 'item' || line === 0;
      const path = concretePath(field, field.level === 'item' ? line : 0);
      const value = shown ? displayValue(valueAt(order.body, path)) : '';
      const cellProblems = shown ? problems.byPath.get(path) : undefined;
      const severity = worstSeverity(cellProblems);
      const cellService = shown ? warned?.get(path) : undefined;
      const flagged = cellService !== undefined && cellService.length > 0;
      const isEditing = editor && editor.line === line && editor.col === col;
      const tipped = cellProblems !== undefined || flagged;
      cells.push(
        <div
          key={col}
          {...common}
          className={`grid-cell${severity ? ` cell-${severity}` : ''}${flagged ? ' cell-service' : ''}${
            shown ? '' : ' cell-continued'
          }`}
          aria-describedby={severity || flagged ? `${id}-msg` : undefined}
          aria-readonly={order.state !== 'staged' || undefined}
        >
          {isEditing ? (
            <input
              className="cell-input"
              aria-label={`${field.label}, order ${order.position}`}
              value={editor.value}
              disabled={editor.saving}
              // Entering edit mode is an explicit request to type here.
              autoFocus
              onChange={(event) => editor.onChange(event.target.value)}
              onKeyDown={(event) => {
                event.stopPropagation();
                if (event.key === 'Enter') {
                  event.preventDefault();
                  editor.onCommit();
                } else if (event.key === 'Escape') {
                  event.preventDefault();
                  editor.onCancel();
                } else if (event.key === 'Tab') {
                  event.preventDefault();
                  editor.onCommit(event.shiftKey ? 'ArrowLeft' : 'ArrowRight');
                }
              }}
              onBlur={() => {
                // Switching to another window is not leaving the cell.
                if (document.hasFocus()) editor.onLeave();
              }}
              // A click in the input is for the caret, not for moving the grid's focus.
              onClick={(event) => event.stopPropagation()}
              onDoubleClick={(event) => event.stopPropagation()}
            />
          ) : (
            <>
              {severity ? (
                <span className="cell-marker" aria-hidden="true">
                  {severity === 'error' ? '✕' : '⚠'}
                </span>
              ) : null}
              {flagged ? (
                <span className="cell-marker service-marker" aria-hidden="true">
                  ⚑
                </span>
              ) : null}
              {/* The value as a bare text node: most cells are only this, and every element costs at a jump. */}
              {value}
              {tipped ? (
                <span id={`${id}-msg`} hidden>
                  {[
                    ...(cellProblems ?? []).map(
                      (problem) => `${problem.severity === 'error' ? 'Error' : 'Warning'}: ${problem.text}`,
                    ),
                    ...(cellService ?? []).map(serviceLine),
                  ].join(' ')}
                </span>
              ) : null}
            </>
          )}
        </div>,
      );
    }
    rows.push(
      <div role="row" key={line} className={`grid-line${line === 0 ? ' grid-order-start' : ''}`}>
        {cells}
      </div>,
    );
  }
  return rows;
});

/** The order's own cell: its position, its state (✓ valid, ✕ errors, ⚠ warnings, → accepted) and ⚑ marks. */
function OrderCell({
  common,
  line,
  order,
  problems,
  service,
}: {
  common: object;
  line: number;
  order: StagedOrderView;
  problems: PlacedProblems;
  service: EnrichmentWarning[] | undefined;
}) {
  // A later item line of the same order says which item it is (a blank line read as a row that lost its values).
  if (line > 0)
    return (
      <div {...common} className="grid-cell cell-continued cell-item-line">
        item {line + 1}
      </div>
    );
  const severity = problems.errors ? 'error' : problems.warnings ? 'warning' : undefined;
  const status =
    order.state === 'accepted'
      ? 'Accepted'
      : severity
        ? countPhrase(problems.errors, problems.warnings)
        : order.orderControl === 'CA'
          ? 'Cancel'
          : 'Valid';
  const serviceCount = service?.length ?? 0;
  return (
    <div {...common} className={`grid-cell order-cell${severity ? ` cell-${severity}` : ''}`}>
      <span className="cell-marker" aria-hidden="true">
        {order.state === 'accepted' ? '→' : severity === 'error' ? '✕' : severity === 'warning' ? '⚠' : '✓'}
      </span>
      {serviceCount ? (
        <span className="cell-marker service-marker" aria-hidden="true">
          ⚑
        </span>
      ) : null}
      <span className="cell-text">
        {order.position}
        <span className="visually-hidden">
          : {status}
          {serviceCount ? `, ${serviceCount} service warning${serviceCount === 1 ? '' : 's'}` : ''}
        </span>
        {order.edited ? <span className="hint"> (edited)</span> : null}
      </span>
    </div>
  );
}

/**
 * The order's problems in one cell: the fields at fault by name, errors first. Problems of the whole order, and of
 * fields the grid has no column for, are explained here (its tooltip and description), with ⚑ warnings of such fields.
 */
function SummaryCell({
  common,
  line,
  order,
  problems,
  offGrid,
  id,
}: {
  common: object;
  line: number;
  order: StagedOrderView;
  problems: PlacedProblems;
  offGrid: EnrichmentWarning[];
  id: string;
}) {
  if (line > 0) return <div {...common} className="grid-cell cell-continued" />;
  const { errors, warnings } = faultyFields(order);
  const described = problems.order.length > 0 || offGrid.length > 0;
  const severity = problems.order.some((problem) => problem.severity === 'error')
    ? 'error'
    : problems.order.length
      ? 'warning'
      : undefined;
  return (
    <div
      {...common}
      className={`grid-cell summary-cell${severity ? ` cell-${severity}` : ''}${problems.errors ? ' summary-bad' : ''}`}
      aria-describedby={described ? `${id}-msg` : undefined}
    >
      {errors.length ? (
        <>
          <span aria-hidden="true">✕ </span>
          <span className="visually-hidden">Errors in: </span>
          {errors.join(', ')}
        </>
      ) : null}
      {errors.length && warnings.length ? <span aria-hidden="true"> · </span> : null}
      {warnings.length ? (
        <>
          <span aria-hidden="true">⚠ </span>
          <span className="visually-hidden">{errors.length ? '; warnings in: ' : 'Warnings in: '}</span>
          {warnings.join(', ')}
        </>
      ) : null}
      {described ? (
        <span id={`${id}-msg`} hidden>
          {[
            ...problems.order.map(
              (problem) => `${problem.severity === 'error' ? 'Error' : 'Warning'}: ${problem.text}`,
            ),
            ...offGrid.map(serviceLine),
          ].join(' ')}
        </span>
      ) : null}
    </div>
  );
}
