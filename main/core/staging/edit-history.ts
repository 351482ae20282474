import type { BatchRecord } from '../store/batches-repo.js';
import type { CellChange, EditStep } from '../store/staged-edits-repo.js';
import type { StagedOrder, StagedProvenance } from '../store/staged-orders-repo.js';
import { assessContext, auditPaths, changeableBatch } from './batch-edits.js';
import { setAtPath } from './cell-changes.js';
import type { EditOutcome } from './order-edits.js';
import { reassessAfterEdit } from './reassess.js';
import { StagingError, type StagingDeps } from './staging-deps.js';

/**
 * Undo and redo across a batch, and each order's edit history. Every edit of an order and every find and replace
 * is one step of its batch's history (store.stagedEdits), with each cell's value before and after. Undo takes the
 * latest step back (a find and replace all at once), redo makes the earliest undone step again; a new change after
 * an undo drops what could have been redone. Both write the values back and re-validate the orders exactly as an
 * edit does, in one transaction with one audit entry (field paths and counts only, never values). A step that
 * touched an order accepted since cannot be undone (nor redone): the outbox has its request already.
 */

type Obj = Record<string, unknown>;
const isObject = (value: unknown): value is Obj => value !== null && typeof value === 'object' && !Array.isArray(value);

/** What undo or redo would do next, for the review screen's buttons. */
export interface StepSummary {
  kind: 'edit' | 'replace';
  /** A find and replace's field (body path); null for an edit. */
  field: string | null;
  /** For an edit of one order: its position in the batch. */
  position: number | null;
  orders: number;
  cells: number;
  at: string;
}

export interface UndoState {
  undo: StepSummary | null;
  redo: StepSummary | null;
}

function summary(deps: StagingDeps, step: EditStep | undefined): StepSummary | null {
  if (!step || deps.store.stagedEdits.touchesAccepted(step.id)) return null;
  const first = step.kind === 'edit' ? deps.store.stagedEdits.changes(step.id)[0] : undefined;
  return {
    kind: step.kind,
    field: step.field,
    position: first ? (deps.store.stagedOrders.get(first.stagedOrderId)?.position ?? null) : null,
    orders: step.orderCount,
    cells: step.cellCount,
    at: step.at,
  };
}

/** The step undo and redo would take now (null: nothing, or blocked by an accepted order or a discarded batch). */
export function undoState(deps: StagingDeps, batch: BatchRecord): UndoState {
  if (batch.discardedAt !== null) return { undo: null, redo: null };
  return {
    undo: summary(deps, deps.store.stagedEdits.lastDone(batch.id)),
    redo: summary(deps, deps.store.stagedEdits.firstUndone(batch.id)),
  };
}

export interface StepOutcome {
  /** The step taken back or made again; null when there was none. */
  step: StepSummary | null;
  /** Ids of the staged orders it changed. */
  stagedOrderIds: number[];
}

/** Undoes the batch's latest change (one edit, or a whole find and replace). */
export function undoLastChange(deps: StagingDeps, batchId: number): StepOutcome {
  return applyStep(deps, batchId, 'undo');
}

/** Makes the batch's earliest undone change again. */
export function redoNextChange(deps: StagingDeps, batchId: number): StepOutcome {
  return applyStep(deps, batchId, 'redo');
}

function applyStep(deps: StagingDeps, batchId: number, direction: 'undo' | 'redo'): StepOutcome {
  const { store } = deps;
  return store.inTransaction(() => {
    const batch = changeableBatch(deps, batchId);
    const step = direction === 'undo' ? store.stagedEdits.lastDone(batch.id) : store.stagedEdits.firstUndone(batch.id);
    if (!step) return { step: null, stagedOrderIds: [] };
    if (store.stagedEdits.touchesAccepted(step.id)) {
      throw new StagingError(
        `the last change to batch ${batchId} touched orders accepted into the outbox since; it cannot be ${
          direction === 'undo' ? 'undone' : 'redone'
        }`,
      );
    }
    const described = summary(deps, step);
    const changes = store.stagedEdits.changes(step.id);
    const byOrder = new Map<number, CellChange[]>();
    for (const change of changes) {
      const list = byOrder.get(change.stagedOrderId);
      if (list) list.push(change);
      else byOrder.set(change.stagedOrderId, [change]);
    }
    const context = assessContext(deps, batch);
    const at = deps.now().toISOString();
    let single: StagedOrder | undefined;
    for (const [stagedOrderId, cells] of byOrder) {
      const order = store.stagedOrders.get(stagedOrderId);
      if (!order || order.state !== 'staged') {
        throw new StagingError(`staged order ${stagedOrderId} is no longer staged; the change cannot be taken back`);
      }
      const body: Obj = isObject(order.body) ? structuredClone(order.body) : {};
      const provenance: Record<string, StagedProvenance> = { ...order.provenance };
      // Undo walks the cells backwards (an item added by the step goes last), redo forwards.
      const ordered = direction === 'undo' ? [...cells].reverse() : cells;
      for (const cell of ordered) {
        const value = direction === 'undo' ? cell.oldValue : cell.newValue;
        const origin = direction === 'undo' ? cell.oldOrigin : cell.newOrigin;
        setAtPath(body, cell.path, value);
        if (origin) provenance[cell.path] = origin;
        else delete provenance[cell.path];
      }
      const outcome: EditOutcome = {
        body,
        provenance,
        changed: cells.map((cell) => cell.path),
        problems: cells.flatMap((cell) => (direction === 'undo' ? cell.cleared : cell.raised)),
      };
      const edited = Object.values(provenance).some((origin) => origin.kind === 'edited');
      const update = reassessAfterEdit(order, outcome, false, context, edited);
      const { cleared: _cleared, ...row } = update;
      if (!store.stagedOrders.update(order.id, row)) {
        throw new StagingError(`staged order ${order.id} was accepted meanwhile; the change cannot be taken back`);
      }
      single = byOrder.size === 1 ? { ...order, ...row } : undefined;
    }
    if (direction === 'undo') store.stagedEdits.markUndone(step.id, at);
    else store.stagedEdits.markDone(step.id);
    store.audit.append({
      actor: 'user',
      action: direction === 'undo' ? 'batch.undone' : 'batch.redone',
      environmentId: batch.environmentId,
      batchId: batch.id,
      ...(single ? { clinicCode: single.clinicCode, clinicOrderId: single.clinicOrderId } : {}),
      details: {
        fieldPath: auditPaths(step.field ? [step.field] : [...new Set(changes.map((change) => change.path))]),
        orderCount: byOrder.size,
      },
    });
    return { step: described, stagedOrderIds: [...byOrder.keys()] };
  });
}

/** One change of an order's history, newest first. */
export interface OrderHistoryItem {
  kind: 'edit' | 'replace';
  at: string;
  /** `done` (in effect), `undone` (can be redone), `dropped` (undone, then replaced by a newer change). */
  state: 'done' | 'undone' | 'dropped';
  undoneAt: string | null;
  path: string;
  before: unknown;
  after: unknown;
}

const HISTORY_LIMIT = 200;

/** An order's changes, newest first (at most 200), for its details in the review screen. */
export function orderHistory(deps: StagingDeps, stagedOrderId: number): OrderHistoryItem[] {
  if (!deps.store.stagedOrders.get(stagedOrderId)) throw new StagingError(`there is no staged order ${stagedOrderId}`);
  return deps.store.stagedEdits.history(stagedOrderId, HISTORY_LIMIT).map((entry) => ({
    kind: entry.kind,
    at: entry.at,
    state: entry.state,
    undoneAt: entry.undoneAt,
    path: entry.path,
    before: entry.oldValue,
    after: entry.newValue,
  }));
}
