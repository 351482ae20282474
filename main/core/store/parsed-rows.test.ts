import { describe, expect, it } from 'vitest';
import { isDeepFrozen } from '../model/deep-frozen.js';
import { ParsedRows } from './parsed-rows.js';

// A stored row read again for every message (an environment's code lists, the mapping profiles): parsed again
// only when a column reads differently, and what is handed out is frozen throughout.

interface Row {
  id: string;
  text: string;
  count: number;
  note: string | null;
  blob?: Buffer;
}

function counting() {
  let parses = 0;
  const rows = new ParsedRows((row: Row) => {
    parses += 1;
    return { id: row.id, text: row.text, count: row.count, note: row.note, parsed: JSON.parse(row.text) as unknown };
  });
  return { rows, parses: () => parses };
}

describe('ParsedRows', () => {
  it('keeps the parse while every column reads the same, and parses again when one differs', () => {
    const { rows, parses } = counting();
    const row: Row = { id: 'a', text: '{"lists":[1,2]}', count: 1, note: null };
    const first = rows.get('a', { ...row });
    expect(rows.get('a', { ...row })).toBe(first);
    expect(parses()).toBe(1);
    for (const changed of [{ text: '{"lists":[1,3]}' }, { count: 2 }, { note: '' }]) {
      const value = rows.get('a', { ...row, ...changed });
      expect(value).not.toBe(first);
      expect(value).toMatchObject(changed);
    }
    expect(parses()).toBe(4);
    // Back to the first row (a write rolled back): parsed again, with the first row's values.
    expect(rows.get('a', { ...row })).toEqual(first);
    expect(parses()).toBe(5);
  });

  it('compares byte columns by their bytes, and a row with another set of columns differs', () => {
    const { rows, parses } = counting();
    const row: Row = { id: 'b', text: '1', count: 0, note: null, blob: Buffer.from([1, 2]) };
    const first = rows.get('b', { ...row, blob: Buffer.from([1, 2]) });
    expect(rows.get('b', { ...row, blob: Buffer.from([1, 2]) })).toBe(first);
    expect(rows.get('b', { ...row, blob: Buffer.from([1, 3]) })).not.toBe(first);
    const { blob: _blob, ...without } = row;
    rows.get('b', without);
    expect(parses()).toBe(3);
  });

  it('hands out values frozen throughout, and known to be (what is derived from them can be kept)', () => {
    const { rows } = counting();
    const value = rows.get('c', { id: 'c', text: '{"a":{"b":[1]}}', count: 0, note: null }) as {
      parsed: { a: { b: number[] } };
    };
    expect(Object.isFrozen(value.parsed.a.b)).toBe(true);
    expect(isDeepFrozen(value)).toBe(true);
    expect(isDeepFrozen(value.parsed.a)).toBe(true);
    expect(isDeepFrozen({ a: 1 })).toBe(false);
  });
});
