import { plural } from '../format/format-time.js';
import { fieldOfPath } from './order-fields.js';

/**
 * What the problems filter shows, said so that a problem in a field the grid has no column for (order value,
 * prescriber fee, currency…) is not taken for no problem at all: those are fixed in the order's details.
 * `fields`: the general paths of the fields with problems; `shown`: how many of their columns the grid shows.
 */
export function problemColumnsText(fields: ReadonlySet<string>, shown: number, allColumns: boolean): string {
  const offGrid = [...fields].some((path) => fieldOfPath(path) !== undefined && !fieldOfPath(path)!.inGrid);
  const details = 'fix them in each order’s details below the grid';
  if (allColumns)
    return offGrid ? `Showing every column; some problems have none: ${details}. ` : 'Showing every column. ';
  if (shown === 0 && offGrid) return `These problems are in fields the grid has no column for: ${details}. `;
  const columns = `Showing the ${plural(shown, 'column')} with problems beside order, clinic order id and surname`;
  return offGrid ? `${columns}; the other problems have no column: ${details}. ` : `${columns}. `;
}
