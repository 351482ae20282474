/**
 * Where the keyboard is in the preview grid: an order (its position in the filtered list), one of its item lines,
 * and a column (0 is the order's own column, 1… the fields). Every order is a rectangle of `lines` × columns, so
 * order-level cells exist on every line of their order (blank after the first) and the arrows never skip a column.
 */
export interface GridCell {
  index: number;
  line: number;
  col: number;
}

export interface GridShape {
  /** Orders in the filtered list. */
  count: number;
  /** Columns, the order column included. */
  columns: number;
  /** Item lines of an order (1 while its page is not loaded). */
  linesOf: (index: number) => number;
  /** Orders a page key moves. */
  pageOrders: number;
}

const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value));

/** The cell a navigation key leads to, or undefined when the key is not a grid navigation key. */
export function moveFocus(from: GridCell, key: string, shape: GridShape, ctrl = false): GridCell | undefined {
  if (shape.count === 0) return undefined;
  const last = shape.count - 1;
  const lastCol = shape.columns - 1;
  switch (key) {
    case 'ArrowRight':
      return { ...from, col: clamp(from.col + 1, 0, lastCol) };
    case 'ArrowLeft':
      return { ...from, col: clamp(from.col - 1, 0, lastCol) };
    case 'ArrowDown':
      if (from.line + 1 < shape.linesOf(from.index)) return { ...from, line: from.line + 1 };
      return from.index < last ? { index: from.index + 1, line: 0, col: from.col } : from;
    case 'ArrowUp':
      if (from.line > 0) return { ...from, line: from.line - 1 };
      return from.index > 0 ? { index: from.index - 1, line: shape.linesOf(from.index - 1) - 1, col: from.col } : from;
    case 'PageDown':
      return { index: clamp(from.index + shape.pageOrders, 0, last), line: 0, col: from.col };
    case 'PageUp':
      return { index: clamp(from.index - shape.pageOrders, 0, last), line: 0, col: from.col };
    case 'Home':
      return ctrl ? { index: 0, line: 0, col: 0 } : { ...from, col: 0 };
    case 'End':
      return ctrl ? { index: last, line: 0, col: lastCol } : { ...from, col: lastCol };
    default:
      return undefined;
  }
}

/** Keeps a cell inside the grid after the list changed under it (a filter, fewer lines). */
export function clampCell(cell: GridCell, shape: GridShape): GridCell {
  const index = clamp(cell.index, 0, Math.max(0, shape.count - 1));
  return {
    index,
    line: clamp(cell.line, 0, Math.max(0, shape.linesOf(index) - 1)),
    col: clamp(cell.col, 0, shape.columns - 1),
  };
}

export const cellId = (gridId: string, cell: GridCell) => `${gridId}-c${cell.index}-${cell.line}-${cell.col}`;
