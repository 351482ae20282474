import { deepFreeze } from '../model/deep-frozen.js';

/**
 * The parse of a stored row, kept while the row reads the same. For rows read on every message or accept
 * (an environment's profile and code lists, the mapping profiles): the row is still read each time, so a write by
 * another path or a rolled-back one is seen at once, but its JSON and schema parse is reused. What it hands out is
 * frozen, since every caller shares it.
 */
export class ParsedRows<Row extends object, Value> {
  readonly #parse: (row: Row) => Value;
  readonly #kept = new Map<string, { row: Row; value: Value }>();

  constructor(parse: (row: Row) => Value) {
    this.#parse = parse;
  }

  get(key: string, row: Row): Value {
    const kept = this.#kept.get(key);
    if (kept && sameColumns(kept.row, row)) return kept.value;
    const value = deepFreeze(this.#parse(row));
    this.#kept.set(key, { row: { ...row }, value });
    return value;
  }
}

/**
 * Whether two rows as a statement returns them (columns of text, numbers, null) hold the same values, compared
 * column by column: no text made of each row read (the code lists can be large).
 */
function sameColumns(kept: object, row: object): boolean {
  const keptColumns = Object.keys(kept);
  const columns = Object.keys(row);
  if (keptColumns.length !== columns.length) return false;
  for (let i = 0; i < columns.length; i += 1) {
    const column = columns[i]!;
    if (column !== keptColumns[i]) return false;
    const a: unknown = (kept as Record<string, unknown>)[column];
    const b: unknown = (row as Record<string, unknown>)[column];
    if (a !== b && !(Buffer.isBuffer(a) && Buffer.isBuffer(b) && a.equals(b))) return false;
  }
  return true;
}
