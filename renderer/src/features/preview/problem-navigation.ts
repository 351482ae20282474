import type { StagedOrderView } from '../../../../shared/staging-views.js';
import { columnOfPath, problemsColumn, type GridColumn } from './grid-columns.js';

/**
 * "Next problem" and "Previous problem" (F8, Shift+F8): where an order's problems sit in the grid, in reading order,
 * and the one after or before a cell. A problem of a field the grid shows is on that field's cell (an item field on
 * its item's line); a problem of the whole order, or of a field the grid has no column for, is on the order's
 * summary cell (whose details have the field's editor). The screen asks the core for the next order with a problem
 * when the focused order has none left that way (`batches.findProblem`).
 */

export interface CellPlace {
  line: number;
  col: number;
}

const ITEM = /^prescribedItems\.(\d+)\./;

export function problemCells(order: Pick<StagedOrderView, 'problems'>, columns: readonly GridColumn[]): CellPlace[] {
  const summary = problemsColumn(columns);
  const cells = new Map<string, CellPlace>();
  for (const problem of order.problems) {
    const col = problem.field === undefined ? undefined : columnOfPath(columns, problem.field);
    const item = problem.field === undefined ? null : ITEM.exec(problem.field);
    const cell = col === undefined ? { line: 0, col: summary } : { line: item ? Number(item[1]) : 0, col };
    cells.set(`${cell.line}:${cell.col}`, cell);
  }
  return [...cells.values()].sort((a, b) => a.line - b.line || a.col - b.col);
}

const before = (a: CellPlace, b: CellPlace) => a.line < b.line || (a.line === b.line && a.col < b.col);

/**
 * The problem cell after (`next`) or before (`previous`) `from` within one order; from the order's start (or end)
 * when `from` is undefined. Undefined when the order has none that way.
 */
export function problemInOrder(
  cells: readonly CellPlace[],
  from: CellPlace | undefined,
  direction: 'next' | 'previous',
): CellPlace | undefined {
  if (direction === 'next') return from ? cells.find((cell) => before(from, cell)) : cells[0];
  return from ? cells.findLast((cell) => before(cell, from)) : cells.at(-1);
}
