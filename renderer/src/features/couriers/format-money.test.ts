import { describe, expect, it } from 'vitest';
import { formatMoney } from './format-money.js';

describe('formatMoney', () => {
  it('formats GBP British style and keeps an unknown currency readable', () => {
    expect(formatMoney(3.95, 'GBP')).toBe('£3.95');
    expect(formatMoney(6.5, 'GBP')).toBe('£6.50');
    expect(formatMoney(2, 'EUR')).toBe('€2.00');
    expect(formatMoney(2, 'NOT-A-CODE')).toBe('2.00 NOT-A-CODE');
  });
});
