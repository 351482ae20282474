import { csvRecord } from '../../../shared/csv-formula.js';
import type { CreateWithClinicV1Input } from '../../../shared/orders.js';
import { FIELDS, TEMPLATE_COLUMNS } from '../model/field-catalogue.js';

/**
 * Writes orders in our CSV template: one row per prescribed item, the order's own columns repeated on each row.
 * Used for the downloadable example, for exporting a staged batch, and by the round-trip tests. Values are written
 * exactly (dm+d codes as digits, phone numbers with their leading zero); cells are quoted only when they must be.
 * A cell that a spreadsheet would run as a formula (`-0161…`, `+44…`, `=…`) is written with a leading apostrophe
 * and quoted (shared/csv-formula.ts); the importer takes exactly that apostrophe off again.
 */

export interface TemplateCsvOptions {
  /** Start with a UTF-8 byte order mark, so Excel on Windows reads `é` and `£` right. */
  bom?: boolean;
}

type Obj = Record<string, unknown>;

function cellText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  return JSON.stringify(value);
}

function read(source: Obj, parts: readonly string[]): unknown {
  let value: unknown = source;
  for (const part of parts) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Obj)[part];
  }
  return value;
}

const ORDER_PARTS = FIELDS.map((field) => (field.level === 'order' ? field.path.split('.') : undefined));
const ITEM_PARTS = FIELDS.map((field) => (field.level === 'item' ? [field.path.split('.').at(-1)!] : undefined));

/** The template's data rows for these orders, as plain cell texts (not yet neutralised or quoted). */
export function templateRows(orders: readonly CreateWithClinicV1Input[]): string[][] {
  const rows: string[][] = [];
  for (const order of orders) {
    const body = order as unknown as Obj;
    const items = Array.isArray(body.prescribedItems) ? (body.prescribedItems as Obj[]) : [];
    // An order without items still gets a row, so exporting never loses an order.
    for (const item of items.length > 0 ? items : [{}]) {
      rows.push(
        FIELDS.map((_, i) => {
          const orderParts = ORDER_PARTS[i];
          return cellText(orderParts ? read(body, orderParts) : read(item, ITEM_PARTS[i]!));
        }),
      );
    }
  }
  return rows;
}

export function writeTemplateCsv(orders: readonly CreateWithClinicV1Input[], options: TemplateCsvOptions = {}): string {
  const lines = [csvRecord(TEMPLATE_COLUMNS), ...templateRows(orders).map((row) => csvRecord(row))];
  return `${options.bom ? '\ufeff' : ''}${lines.join('\r\n')}\r\n`;
}
