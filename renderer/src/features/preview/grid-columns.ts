import { concretePath, displayValue, fieldOfPath, GRID_FIELDS, valueAt, type OrderField } from './order-fields.js';
import type { StagedOrderView } from '../../../../shared/staging-views.js';

/**
 * The preview grid's columns: the order (its position and state), the clinic order id and the surname, frozen at
 * the left while the grid scrolls sideways; then a summary naming the fields at fault; then every other field the
 * grid shows. Widths follow the content (measured once, from the first orders loaded), within bounds per column,
 * except that a dm+d code is never cut.
 */

export type GridColumn =
  | { kind: 'order'; key: 'order'; label: string }
  | { kind: 'problems'; key: 'problems'; label: string }
  | { kind: 'field'; key: string; label: string; field: OrderField };

const FROZEN_FIELDS = ['clinicOrderId', 'surname'];

const fieldColumn = (field: OrderField): GridColumn => ({
  kind: 'field',
  key: field.column,
  label: field.label,
  field,
});

/** Every column, in order; the first FROZEN_COLUMNS stay in view when the grid scrolls sideways. */
export const ALL_COLUMNS: readonly GridColumn[] = [
  { kind: 'order', key: 'order', label: 'Order' },
  ...FROZEN_FIELDS.map((column) => fieldColumn(GRID_FIELDS.find((field) => field.column === column)!)),
  { kind: 'problems', key: 'problems', label: 'Problems' },
  ...GRID_FIELDS.filter((field) => !FROZEN_FIELDS.includes(field.column)).map(fieldColumn),
];

/** Order, clinic order id and surname. */
export const FROZEN_COLUMNS = 1 + FROZEN_FIELDS.length;

/**
 * The columns to show. With `onlyFields` (the problems filter: the general paths of the fields with problems in
 * the batch), the frozen columns, the summary and only those fields, so every bad cell is in view at once.
 */
export function visibleColumns(onlyFields?: ReadonlySet<string>): GridColumn[] {
  if (!onlyFields) return [...ALL_COLUMNS];
  return ALL_COLUMNS.filter(
    (column, index) => index < FROZEN_COLUMNS + 1 || (column.kind === 'field' && onlyFields.has(column.field.path)),
  );
}

/** Text width in px of a string in the grid's font. */
export type Measure = (text: string) => number;

/** Padding, border and room for a marker (✕, ⚠, ⚑) in a cell, px. */
const CELL_CHROME = 16;
const MARKER = 16;
const MIN_WIDTH = 48;
const MAX_WIDTH = 320;
const PROBLEMS_MAX = 300;

/** The widest dm+d code there is: 18 digits (and a marker beside it). */
const WIDEST_DMD = '0'.repeat(18);

/**
 * Column widths in px from the header labels and the values of `orders` (a sample: the first orders loaded): each
 * at least its label and at most MAX_WIDTH (the rest is cut with an ellipsis and shown in the details), except a
 * dm+d code, always wide enough for 18 digits and a marker. `problemText` is the summary cell's text of an order; `measureLabel` measures in the header's font.
 */
export function columnWidths(
  columns: readonly GridColumn[],
  orders: readonly StagedOrderView[],
  measure: Measure,
  problemText: (order: StagedOrderView) => string,
  measureLabel: Measure = measure,
): number[] {
  return columns.map((column) => {
    let widest = measureLabel(column.label) + CELL_CHROME;
    let max = MAX_WIDTH;
    if (column.kind === 'order') {
      // The position, its marker, ⚑ and "(edited)".
      const longest = orders.reduce((most, order) => Math.max(most, String(order.position).length), 1);
      widest = Math.max(widest, measure(`${'0'.repeat(longest)} (edited)`) + 2 * MARKER + CELL_CHROME);
    } else if (column.kind === 'problems') {
      max = PROBLEMS_MAX;
      for (const order of orders) widest = Math.max(widest, measure(problemText(order)) + CELL_CHROME);
    } else {
      const { field } = column;
      for (const order of orders) {
        const lines = field.level === 'item' ? itemTotal(order) : 1;
        for (let line = 0; line < lines; line += 1) {
          const text = displayValue(valueAt(order.body, concretePath(field, line)));
          if (text) widest = Math.max(widest, measure(text) + CELL_CHROME + MARKER);
        }
      }
      if (field.column === 'dmdCode') {
        const whole = measure(WIDEST_DMD) + CELL_CHROME + MARKER * 2;
        return Math.ceil(Math.max(widest, whole));
      }
    }
    return Math.ceil(Math.min(max, Math.max(MIN_WIDTH, widest)));
  });
}

function itemTotal(order: StagedOrderView): number {
  const items = valueAt(order.body, 'prescribedItems');
  return Array.isArray(items) && items.length > 0 ? items.length : 1;
}

/**
 * An order's summary: the fields at fault by their labels, errors first ("✕ Home postcode, Courier · ⚠ Telephone");
 * a problem of the whole order is "the order". Empty for an order without problems.
 */
export function problemSummary(order: Pick<StagedOrderView, 'problems'>): string {
  const { errors, warnings } = faultyFields(order);
  const parts: string[] = [];
  if (errors.length) parts.push(`✕ ${errors.join(', ')}`);
  if (warnings.length) parts.push(`⚠ ${warnings.join(', ')}`);
  return parts.join(' · ');
}

/** The fields an order's errors and warnings are about, by their labels, each once, in the order found. */
export function faultyFields(order: Pick<StagedOrderView, 'problems'>): { errors: string[]; warnings: string[] } {
  const errors: string[] = [];
  const warnings: string[] = [];
  for (const problem of order.problems) {
    const label = problem.field === undefined ? 'the order' : (fieldOfPath(problem.field)?.label ?? problem.field);
    const item = problem.field?.match(/^prescribedItems\.(\d+)\./);
    const named = item ? `${label} (item ${Number(item[1]) + 1})` : label;
    const list = problem.severity === 'error' ? errors : warnings;
    if (!list.includes(named)) list.push(named);
  }
  return { errors, warnings };
}

/** The column showing a concrete body path (`prescribedItems.1.dmdCode` → the dm+d column), if it is shown. */
export function columnOfPath(columns: readonly GridColumn[], path: string): number | undefined {
  const field = fieldOfPath(path);
  if (!field) return undefined;
  const index = columns.findIndex((column) => column.kind === 'field' && column.field.path === field.path);
  return index < 0 ? undefined : index;
}

/** The summary column's index. */
export function problemsColumn(columns: readonly GridColumn[]): number {
  return columns.findIndex((column) => column.kind === 'problems');
}
