import { describe, expect, it } from 'vitest';
import { clampCell, moveFocus, type GridShape } from './grid-focus.js';

// Three orders: the second has three item lines.
const shape: GridShape = { count: 3, columns: 5, linesOf: (i) => (i === 1 ? 3 : 1), pageOrders: 10 };

describe('keyboard movement in the preview grid', () => {
  it('walks down through an order’s item lines before the next order, and back up to its last line', () => {
    let cell = { index: 0, line: 0, col: 2 };
    const visited = [];
    for (let i = 0; i < 5; i += 1) {
      cell = moveFocus(cell, 'ArrowDown', shape)!;
      visited.push([cell.index, cell.line]);
    }
    expect(visited).toEqual([
      [1, 0],
      [1, 1],
      [1, 2],
      [2, 0],
      [2, 0], // the last line stays put
    ]);
    expect(moveFocus({ index: 2, line: 0, col: 2 }, 'ArrowUp', shape)).toEqual({ index: 1, line: 2, col: 2 });
  });

  it('stays inside the columns and jumps with Home, End and their Ctrl forms', () => {
    expect(moveFocus({ index: 0, line: 0, col: 0 }, 'ArrowLeft', shape)).toEqual({ index: 0, line: 0, col: 0 });
    expect(moveFocus({ index: 0, line: 0, col: 4 }, 'ArrowRight', shape)).toEqual({ index: 0, line: 0, col: 4 });
    expect(moveFocus({ index: 1, line: 1, col: 2 }, 'End', shape)).toEqual({ index: 1, line: 1, col: 4 });
    expect(moveFocus({ index: 1, line: 1, col: 2 }, 'End', shape, true)).toEqual({ index: 2, line: 0, col: 4 });
    expect(moveFocus({ index: 2, line: 0, col: 2 }, 'Home', shape, true)).toEqual({ index: 0, line: 0, col: 0 });
    expect(moveFocus({ index: 0, line: 0, col: 2 }, 'PageDown', shape)).toEqual({ index: 2, line: 0, col: 2 });
    expect(moveFocus({ index: 0, line: 0, col: 2 }, 'a', shape)).toBeUndefined();
  });

  it('pulls a cell back inside a list that shrank (a filter applied)', () => {
    expect(clampCell({ index: 40, line: 2, col: 9 }, shape)).toEqual({ index: 2, line: 0, col: 4 });
    expect(clampCell({ index: 1, line: 7, col: 1 }, shape)).toEqual({ index: 1, line: 2, col: 1 });
  });
});
