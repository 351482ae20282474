import type { EditStepView } from '../../../../shared/staging-views.js';
import { fieldOfPath } from './order-fields.js';

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-GB')} ${n === 1 ? one : many}`;

/** A change as the undo and redo buttons and their messages name it: "the find and replace in Courier (2 orders)". */
export function describeStep(step: EditStepView): string {
  if (step.kind === 'replace') {
    const label = step.field ? (fieldOfPath(step.field)?.label ?? step.field) : 'a column';
    return `the find and replace in ${label} (${plural(step.orders, 'order')}, ${plural(step.cells, 'cell')})`;
  }
  const where = step.position === null ? 'an order' : `order ${step.position}`;
  return `the edit of ${where} (${plural(step.cells, 'cell')})`;
}

/** The status line after an undo or a redo. */
export function stepMessage(direction: 'undo' | 'redo', step: EditStepView | null): string {
  if (!step) return direction === 'undo' ? 'Nothing to undo.' : 'Nothing to redo.';
  const text = describeStep(step);
  return direction === 'undo' ? `Undid ${text}.` : `Redid ${text}.`;
}
