import { describe, expect, it } from 'vitest';
import { convertValue } from './value-conversion.js';

const TODAY = new Date('2025-06-01T00:00:00Z');

describe('numbers written with a unit', () => {
  it.each([
    ['32 tablets', 'int', "has 'tablets' after the number: write the number alone (32); the unit is not part of it"],
    ['28 TAB', 'int', "has 'TAB' after the number: write the number alone (28); the unit is not part of it"],
    ['2.5ml', 'number', "has 'ml' after the number: write the number alone (2.5); the unit is not part of it"],
    ['1 x 28', 'int', 'is not a number'],
    ['two', 'int', 'is not a number'],
  ] as const)('%s (%s) is refused saying %s', (text, kind, reason) => {
    expect(convertValue(text, kind, undefined, TODAY)).toEqual({ ok: false, code: 'value.notNumber', reason });
  });
});
