import { FIELDS } from '../model/field-catalogue.js';
import type { Problem } from '../model/imported-order.js';
import { problem } from './problems.js';

/** The delivery address's columns: all absent, the home address is used (finish-order), so none is missed. */
const DELIVERY = FIELDS.flatMap((field, index) => (field.column.startsWith('delivery') ? [index] : []));

/**
 * A template file whose header lacks a required column: every order then has the same "X is required" error, on a
 * cell the file does not have, and nothing said the column itself was missing (an admin looks for empty cells).
 * Said once for the file, naming the columns; a warning, since the orders carry the errors (a file error refuses
 * the whole import). Only for our template: a mapped layout says so in its mapping (`profile.missingColumn`).
 * `cellOf`: by field index, the cell read for it or -1; `constants`: fields a profile gives without a column.
 */
export function missingRequiredColumns(
  cellOf: readonly number[],
  constants: readonly unknown[],
  file: string,
  headerLine: number,
): Problem | undefined {
  const noDelivery = DELIVERY.every((index) => cellOf[index] === -1);
  const missing = FIELDS.filter(
    (field, index) =>
      field.required &&
      cellOf[index] === -1 &&
      constants[index] === undefined &&
      !(noDelivery && DELIVERY.includes(index)),
  );
  if (missing.length === 0) return undefined;
  const one = missing.length === 1;
  const names = missing.map((field) => `"${field.column}" (${field.label})`).join(', ');
  return problem(
    'warning',
    file,
    { row: headerLine },
    'csv.missingRequiredColumn',
    `The header has no ${one ? 'column' : 'columns'} ${names}, which every order needs: each order is missing ${one ? 'it' : 'them'}. Add the ${one ? 'column' : 'columns'} to the header, as in the template, fill ${one ? 'it' : 'them'} in, and import the file again.`,
  );
}
