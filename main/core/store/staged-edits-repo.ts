import type Database from 'better-sqlite3';
import type { Problem } from '../model/imported-order.js';
import type { StagedProvenance } from './staged-orders-repo.js';

/**
 * The edit history of staged orders (migration 013): every change the admin made to a batch as a step (one edit
 * of an order, or one find and replace), with each cell it changed, so a batch's changes can be undone and redone
 * in order and each order's history shown. Values live here beside the staged bodies (they are patient data and
 * never go to the audit log).
 */

export type EditStepKind = 'edit' | 'replace';
export type EditStepState = 'done' | 'undone' | 'dropped';

/** One cell a step changed. `undefined` values and origins: the field was absent. */
export interface CellChange {
  stagedOrderId: number;
  /** Concrete dotted body path (`prescribedItems.1.dmdCode`). */
  path: string;
  oldValue: unknown;
  newValue: unknown;
  oldOrigin: StagedProvenance | undefined;
  newOrigin: StagedProvenance | undefined;
  /** Problems only the import could see that the change cleared: an undo puts them back. */
  cleared: Problem[];
  /** Problems the edit itself raised (a value it could not read): a redo puts them back. */
  raised: Problem[];
}

export interface EditStep {
  id: number;
  batchId: number;
  kind: EditStepKind;
  /** A find and replace's field (body path, `prescribedItems.*.x` for item fields); null for an edit. */
  field: string | null;
  orderCount: number;
  cellCount: number;
  at: string;
  state: EditStepState;
  undoneAt: string | null;
}

export interface OrderHistoryEntry {
  stepId: number;
  kind: EditStepKind;
  at: string;
  state: EditStepState;
  undoneAt: string | null;
  path: string;
  oldValue: unknown;
  newValue: unknown;
}

interface ChangeRow {
  stagedOrderId: number;
  path: string;
  oldValue: string | null;
  newValue: string | null;
  oldOrigin: string | null;
  newOrigin: string | null;
  cleared: string | null;
  raised: string | null;
}

type HistoryRow = Omit<OrderHistoryEntry, 'oldValue' | 'newValue'> & {
  oldValue: string | null;
  newValue: string | null;
};

const STEP_COLUMNS = `id, batch_id AS batchId, kind, field, order_count AS orderCount, cell_count AS cellCount, at, state,
  undone_at AS undoneAt`;

const json = (value: unknown): string | null => (value === undefined ? null : JSON.stringify(value));
const parsed = (text: string | null): unknown => (text === null ? undefined : (JSON.parse(text) as unknown));
const problems = (text: string | null): Problem[] => (text === null ? [] : (JSON.parse(text) as Problem[]));

export class StagedEditsRepo {
  readonly #insertStep: Database.Statement;
  readonly #insertChange: Database.Statement;
  readonly #dropUndone: Database.Statement<[string, number]>;
  readonly #lastDone: Database.Statement<[number], EditStep>;
  readonly #firstUndone: Database.Statement<[number], EditStep>;
  readonly #changes: Database.Statement<[number], ChangeRow>;
  readonly #touchesAccepted: Database.Statement<[number], number>;
  readonly #setState: Database.Statement<[EditStepState, string | null, number]>;
  readonly #addCounts: Database.Statement<{ stepId: number; orders: number; cells: number }>;
  readonly #history: Database.Statement<[number, number], HistoryRow>;

  constructor(db: Database.Database) {
    this.#insertStep = db.prepare(
      `INSERT INTO staged_edit_steps (batch_id, kind, field, order_count, cell_count, at, state)
       VALUES (@batchId, @kind, @field, @orderCount, @cellCount, @at, 'done')`,
    );
    this.#insertChange = db.prepare(
      `INSERT INTO staged_order_edits (step_id, staged_order_id, path, old_value, new_value, old_origin, new_origin,
         cleared, raised)
       VALUES (@stepId, @stagedOrderId, @path, @oldValue, @newValue, @oldOrigin, @newOrigin, @cleared, @raised)`,
    );
    this.#dropUndone = db.prepare(
      `UPDATE staged_edit_steps SET state = 'dropped', undone_at = coalesce(undone_at, ?)
       WHERE batch_id = ? AND state = 'undone'`,
    );
    this.#lastDone = db.prepare(
      `SELECT ${STEP_COLUMNS} FROM staged_edit_steps WHERE batch_id = ? AND state = 'done' ORDER BY id DESC LIMIT 1`,
    );
    this.#firstUndone = db.prepare(
      `SELECT ${STEP_COLUMNS} FROM staged_edit_steps WHERE batch_id = ? AND state = 'undone' ORDER BY id LIMIT 1`,
    );
    this.#changes = db.prepare(
      `SELECT staged_order_id AS stagedOrderId, path, old_value AS oldValue, new_value AS newValue,
         old_origin AS oldOrigin, new_origin AS newOrigin, cleared, raised
       FROM staged_order_edits WHERE step_id = ? ORDER BY staged_order_id, id`,
    );
    this.#touchesAccepted = db
      .prepare<[number], number>(
        `SELECT 1 FROM staged_order_edits e JOIN staged_orders o ON o.id = e.staged_order_id
         WHERE e.step_id = ? AND o.state <> 'staged' LIMIT 1`,
      )
      .pluck();
    this.#setState = db.prepare('UPDATE staged_edit_steps SET state = ?, undone_at = ? WHERE id = ?');
    this.#addCounts = db.prepare(
      'UPDATE staged_edit_steps SET order_count = order_count + @orders, cell_count = cell_count + @cells WHERE id = @stepId',
    );
    this.#history = db.prepare(
      `SELECT s.id AS stepId, s.kind, s.at, s.state, s.undone_at AS undoneAt, e.path, e.old_value AS oldValue,
         e.new_value AS newValue
       FROM staged_order_edits e JOIN staged_edit_steps s ON s.id = e.step_id
       WHERE e.staged_order_id = ? ORDER BY e.id DESC LIMIT ?`,
    );
  }

  /**
   * Records a new step with its cells (inside the caller's transaction) and returns its id. Steps that were undone
   * can no longer be redone after a new change: they are marked dropped (still in each order's history).
   */
  record(
    step: { batchId: number; kind: EditStepKind; field: string | null; at: string },
    changes: readonly CellChange[],
  ): number {
    this.#dropUndone.run(step.at, step.batchId);
    const orders = new Set(changes.map((change) => change.stagedOrderId));
    const stepId = Number(
      this.#insertStep.run({ ...step, orderCount: orders.size, cellCount: changes.length }).lastInsertRowid,
    );
    this.#insertChanges(stepId, changes);
    return stepId;
  }

  /**
   * Adds cells of orders not yet in the step (a find and replace made in steps, each its own transaction): one undo
   * still takes all of it back.
   */
  append(stepId: number, changes: readonly CellChange[]): void {
    const orders = new Set(changes.map((change) => change.stagedOrderId));
    this.#addCounts.run({ stepId, orders: orders.size, cells: changes.length });
    this.#insertChanges(stepId, changes);
  }

  #insertChanges(stepId: number, changes: readonly CellChange[]): void {
    for (const change of changes) {
      this.#insertChange.run({
        stepId,
        stagedOrderId: change.stagedOrderId,
        path: change.path,
        oldValue: json(change.oldValue),
        newValue: json(change.newValue),
        oldOrigin: json(change.oldOrigin),
        newOrigin: json(change.newOrigin),
        cleared: change.cleared.length ? JSON.stringify(change.cleared) : null,
        raised: change.raised.length ? JSON.stringify(change.raised) : null,
      });
    }
  }

  /** The batch's latest step still in effect (what undo takes back). */
  lastDone(batchId: number): EditStep | undefined {
    return this.#lastDone.get(batchId);
  }

  /** The batch's earliest undone step (what redo makes again). */
  firstUndone(batchId: number): EditStep | undefined {
    return this.#firstUndone.get(batchId);
  }

  /** A step's cells, grouped by order (in order id order), each order's in the order they were recorded. */
  changes(stepId: number): CellChange[] {
    return this.#changes.all(stepId).map((row) => ({
      stagedOrderId: row.stagedOrderId,
      path: row.path,
      oldValue: parsed(row.oldValue),
      newValue: parsed(row.newValue),
      oldOrigin: parsed(row.oldOrigin) as StagedProvenance | undefined,
      newOrigin: parsed(row.newOrigin) as StagedProvenance | undefined,
      cleared: problems(row.cleared),
      raised: problems(row.raised),
    }));
  }

  /** Whether any order the step changed has left staging (accepted into the outbox): then it cannot be undone. */
  touchesAccepted(stepId: number): boolean {
    return this.#touchesAccepted.get(stepId) !== undefined;
  }

  markUndone(stepId: number, at: string): void {
    this.#setState.run('undone', at, stepId);
  }

  markDone(stepId: number): void {
    this.#setState.run('done', null, stepId);
  }

  /** An order's changes, newest first (at most `limit`). */
  history(stagedOrderId: number, limit: number): OrderHistoryEntry[] {
    return this.#history.all(stagedOrderId, limit).map((row) => ({
      ...row,
      oldValue: parsed(row.oldValue),
      newValue: parsed(row.newValue),
    }));
  }
}
