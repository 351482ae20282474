import { describe, expect, it } from 'vitest';
import { describeStep, stepMessage } from './undo-text.js';

describe('undo and redo in words', () => {
  it('names a find and replace by its column and an edit by its order', () => {
    const replace = {
      kind: 'replace' as const,
      field: 'prescription.courierCode',
      position: null,
      orders: 2,
      cells: 2,
      at: '',
    };
    expect(describeStep(replace)).toBe('the find and replace in Courier (2 orders, 2 cells)');
    const items = { ...replace, field: 'prescribedItems.*.medication', orders: 1, cells: 3 };
    expect(describeStep(items)).toBe('the find and replace in Medication (1 order, 3 cells)');
    const edit = { kind: 'edit' as const, field: null, position: 7, orders: 1, cells: 1, at: '' };
    expect(stepMessage('undo', edit)).toBe('Undid the edit of order 7 (1 cell).');
    expect(stepMessage('redo', null)).toBe('Nothing to redo.');
  });
});
