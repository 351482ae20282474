import { describe, expect, it } from 'vitest';
import { currencyConflict, readMoneyText } from './amounts.js';

describe('amounts written with a currency', () => {
  it.each([
    ['£12.50', '12.50', ['GBP']],
    ['£ 12.50', '12.50', ['GBP']],
    ['-£5', '-5', ['GBP']],
    ['GBP 12.50', '12.50', ['GBP']],
    ['12.50 gbp', '12.50', ['GBP']],
    ['12.50GBP', '12.50', ['GBP']],
    ['3,20 €', '3,20', ['EUR']],
    ['US$4', '4', ['USD']],
    ['A$4', '4', ['AUD']],
    ['C$4', '4', ['CAD']],
  ])('reads %s as the number %s in %j', (text, number, codes) => {
    expect(readMoneyText(text)).toMatchObject({ number, codes });
  });

  it.each(['12.50', '1,250', '-3', '', 'abc', '12.50p', '£', 'GBP', '-£-5', '12 34 GBP'])(
    'finds no currency in %j',
    (text) => expect(readMoneyText(text)).toBeUndefined(),
  );

  it("accepts the order's currency and names the conflict otherwise", () => {
    const dollars = readMoneyText('$4')!;
    expect(currencyConflict(dollars, 'USD')).toBeUndefined();
    expect(currencyConflict(dollars, 'CAD')).toBeUndefined();
    expect(currencyConflict(dollars, 'GBP')).toBe(
      "is written in dollars ('$': USD, AUD, CAD, NZD, SGD or HKD), but the order's currency code is GBP: write the amount in GBP as a number alone, or correct the currency code",
    );
    expect(currencyConflict(readMoneyText('12 EUR')!, undefined)).toBe(
      'is written in EUR, but the order has no currency code to check it against: fill in the currency code, or write the amount without a currency',
    );
    expect(currencyConflict(readMoneyText('12 EUR')!, 'EURO')).toContain('no currency code');
  });
});
