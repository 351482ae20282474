import { DEFAULT_CODE_LISTS } from '../../../shared/environment.js';
import { FIELDS, type FieldKind, type FieldSpec } from '../model/field-catalogue.js';
import { ENUMS } from './validate-order.js';

/**
 * The template's column guide, a plain text file downloaded beside the CSV (a CSV cannot carry a second sheet):
 * what a row is, then each column in the template's order with what it holds, whether it is required, how it is
 * written and an example. Built from the field catalogue, like the template, so the two cannot drift apart.
 */

const KIND_TEXT: Record<FieldKind, string> = {
  text: 'text, kept exactly as written',
  upper: 'a code, read in capitals',
  int: 'a whole number',
  number: 'a number',
  date: 'a date, written YYYY-MM-DD (another format can be chosen when importing)',
  dmd: 'digits only (6 to 18); keep the column as text in a spreadsheet so long codes are not rounded',
};

/**
 * How a field is written: its kind, or, for a field checked against the environment's code lists (title, gender,
 * payment type, courier, currency), that it must be one of them, where they are set and what they hold out of the
 * box. Described as free text, a value outside them came as a surprise at import.
 */
function writtenAs(field: FieldSpec): string {
  const listed = ENUMS.find(([container, key]) => field.path === `${container}.${key}`);
  if (!listed) return KIND_TEXT[field.kind];
  const [, , list, what] = listed;
  const how = field.kind === 'upper' ? 'read in capitals' : 'written exactly as listed';
  return `one of the environment's ${what}, ${how} (Settings, the environment's Edit; out of the box: ${DEFAULT_CODE_LISTS[list].join(', ')})`;
}

export function templateGuideText(templateFileName: string): string {
  const width = Math.max(...FIELDS.map((field) => field.column.length));
  const lines = [
    `Rx Batch order template: the columns of ${templateFileName}`,
    '',
    'One row per prescribed item. An order with several items takes several rows with the same clinicCode and',
    "clinicOrderId, the order's own columns repeated on each row. Keep the header row as it is. Required",
    'columns need a value on every row; the delivery address columns may all be left blank, and then the home',
    'address is used. Save the file as "CSV UTF-8", not as an Excel workbook.',
    '',
    'The example row is a made-up patient; its dm+d code is in the local sandbox catalogue.',
    '',
  ];
  let level: 'order' | 'item' | undefined;
  for (const field of FIELDS) {
    if (field.level !== level) {
      level = field.level;
      lines.push(level === 'order' ? 'The order (same on each of its rows):' : 'The prescribed item (one per row):');
    }
    const need = field.required ? 'required' : 'optional';
    const example = field.example === '' ? '' : ` Example: ${field.example}`;
    lines.push(`  ${field.column.padEnd(width)}  ${field.label} (${need}); ${writtenAs(field)}.${example}`);
  }
  return `${lines.join('\r\n')}\r\n`;
}
