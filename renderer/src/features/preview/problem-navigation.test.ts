import { describe, expect, it } from 'vitest';
import { ALL_COLUMNS, problemsColumn } from './grid-columns.js';
import { problemCells, problemInOrder } from './problem-navigation.js';

const col = (label: string) => ALL_COLUMNS.findIndex((column) => column.label === label);
const problem = (field?: string) => ({
  severity: 'error' as const,
  file: 'f',
  code: 'c',
  text: 't',
  ...(field ? { field } : {}),
});

describe('next and previous problem', () => {
  const order = {
    problems: [
      problem('prescribedItems.1.quantity'),
      problem('homeAddress.postCode'),
      problem('prescription.currencyCode'), // no column: on the summary cell
      problem(),
      problem('customer.surname'),
    ],
  };
  const cells = problemCells(order, ALL_COLUMNS);

  it('places each problem on its exact cell, in reading order (line, then column)', () => {
    expect(cells).toEqual([
      { line: 0, col: col('Surname') },
      { line: 0, col: problemsColumn(ALL_COLUMNS) },
      { line: 0, col: col('Home postcode') },
      { line: 1, col: col('Quantity') },
    ]);
  });

  it('moves to the problem after or before a cell, from the start or the end without one', () => {
    expect(problemInOrder(cells, undefined, 'next')).toEqual(cells[0]);
    expect(problemInOrder(cells, undefined, 'previous')).toEqual(cells[3]);
    expect(problemInOrder(cells, { line: 0, col: 0 }, 'next')).toEqual(cells[0]);
    expect(problemInOrder(cells, cells[1], 'next')).toEqual(cells[2]);
    expect(problemInOrder(cells, { line: 0, col: 40 }, 'next')).toEqual(cells[3]);
    expect(problemInOrder(cells, cells[3], 'next')).toBeUndefined();
    expect(problemInOrder(cells, cells[2], 'previous')).toEqual(cells[1]);
    expect(problemInOrder(cells, cells[0], 'previous')).toBeUndefined();
  });
});
