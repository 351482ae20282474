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

describe('a full stop before three digits in a semicolon file', () => {
  it.each([
    ['1.000', 'int', '1000'],
    ['30.000', 'int', '30000'],
    ['1.234', 'number', '1234'],
    ['12.500', 'number', '12500'],
    ['1.250.000', 'int', '1250000'],
  ] as const)('%s (%s) is refused naming both readings (%s, or a decimal point)', (text, kind, thousands) => {
    const converted = convertValue(text, kind, undefined, TODAY, { decimalComma: true });
    expect(converted).toMatchObject({ ok: false, code: 'value.thousandsStop' });
    expect(!converted.ok && converted.reason).toContain(`separates thousands (${thousands})`);
  });

  it('is read as before where a full stop is the decimal point, and other decimals stay readable', () => {
    expect(convertValue('1.000', 'int', undefined, TODAY)).toEqual({ ok: true, value: 1 });
    expect(convertValue('1.234', 'number', undefined, TODAY)).toEqual({ ok: true, value: 1.234 });
    expect(convertValue('24,50', 'number', undefined, TODAY, { decimalComma: true })).toEqual({
      ok: true,
      value: 24.5,
    });
    expect(convertValue('2.5', 'number', undefined, TODAY, { decimalComma: true })).toEqual({ ok: true, value: 2.5 });
    expect(convertValue('30.00', 'int', undefined, TODAY, { decimalComma: true })).toEqual({ ok: true, value: 30 });
    expect(convertValue('1000', 'int', undefined, TODAY, { decimalComma: true })).toEqual({ ok: true, value: 1000 });
  });
});
