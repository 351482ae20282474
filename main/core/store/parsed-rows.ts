/**
 * The parse of a stored row, kept while the row reads the same. For rows read on every message or accept
 * (an environment's profile and code lists, the mapping profiles): the row is still read each time, so a write by
 * another path or a rolled-back one is seen at once, but its JSON and schema parse is reused. What it hands out is
 * frozen, since every caller shares it.
 */
export class ParsedRows<Row, Value> {
  readonly #parse: (row: Row) => Value;
  readonly #kept = new Map<string, { text: string; value: Value }>();

  constructor(parse: (row: Row) => Value) {
    this.#parse = parse;
  }

  get(key: string, row: Row): Value {
    const text = JSON.stringify(row);
    const kept = this.#kept.get(key);
    if (kept?.text === text) return kept.value;
    const value = deepFreeze(this.#parse(row));
    this.#kept.set(key, { text, value });
    return value;
  }
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
