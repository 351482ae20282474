/**
 * Amounts written with their currency, as spreadsheets and clinic systems export them: `£12.50`, `GBP 12.50`,
 * `12.50 GBP`, `€3,20` (a comma-decimal locale), `$4`, `-£5`. The order carries one currency (currencyCode), so a
 * sign or code that is that currency says nothing more and the number alone is the value; one that is another
 * currency contradicts the order and is refused, never converted or dropped.
 */

interface Sign {
  /** In words, for the sentences. */
  name: string;
  /** The ISO 4217 codes the sign is written for. */
  codes: readonly string[];
}

const SIGNS: Record<string, Sign> = {
  '£': { name: 'pounds', codes: ['GBP'] },
  '€': { name: 'euros', codes: ['EUR'] },
  $: { name: 'dollars', codes: ['USD', 'AUD', 'CAD', 'NZD', 'SGD', 'HKD'] },
  US$: { name: 'US dollars', codes: ['USD'] },
  A$: { name: 'Australian dollars', codes: ['AUD'] },
  AU$: { name: 'Australian dollars', codes: ['AUD'] },
  C$: { name: 'Canadian dollars', codes: ['CAD'] },
  CA$: { name: 'Canadian dollars', codes: ['CAD'] },
  NZ$: { name: 'New Zealand dollars', codes: ['NZD'] },
  '¥': { name: 'yen or yuan', codes: ['JPY', 'CNY'] },
  '₹': { name: 'rupees', codes: ['INR'] },
};

const NUMBER = String.raw`[-+]?(?:\d[\d.,]*|[.,]\d+)`;
const MARK = String.raw`US\$|AU?\$|CA?\$|NZ\$|[£€$¥₹]|[A-Za-z]{3}`;
const BEFORE = new RegExp(String.raw`^([-+]?)\s*(${MARK})\s*(${NUMBER})$`);
const AFTER = new RegExp(String.raw`^(${NUMBER})\s*(${MARK})$`);
// Cheap first test: a value of digits and separators only (almost every amount) is no money text.
const ONLY_NUMBER = /^[-+]?[\d.,]*$/;

export interface MoneyText {
  /** The number as written, without the currency (`3,20`). */
  number: string;
  /** What marked the currency, as written (`£`, `GBP`, `gbp`). */
  mark: string;
  /** The currencies it may be. */
  codes: readonly string[];
  /** `pounds`, `GBP`. */
  name: string;
}

/** The currency written with an amount, or undefined when it has none (or is not an amount at all). */
export function readMoneyText(text: string): MoneyText | undefined {
  if (ONLY_NUMBER.test(text)) return undefined;
  let sign = '';
  let mark: string;
  let number: string;
  const before = BEFORE.exec(text);
  if (before) {
    sign = before[1]!;
    mark = before[2]!;
    number = before[3]!;
  } else {
    const after = AFTER.exec(text);
    if (!after) return undefined;
    number = after[1]!;
    mark = after[2]!;
  }
  if (sign && /^[-+]/.test(number)) return undefined;
  const known = SIGNS[mark];
  if (known) return { number: sign + number, mark, codes: known.codes, name: known.name };
  if (!/^[A-Za-z]{3}$/.test(mark)) return undefined;
  const code = mark.toUpperCase();
  return { number: sign + number, mark, codes: [code], name: code };
}

/**
 * Why an amount's currency cannot stand beside the order's (`currency`: its currencyCode, upper-cased, or undefined
 * when it has none); undefined when it is the order's.
 */
export function currencyConflict(money: MoneyText, currency: string | undefined): string | undefined {
  const code = money.mark.toUpperCase() === money.codes[0];
  const what = code ? money.codes[0]! : `${money.name} ('${money.mark}': ${listCodes(money.codes)})`;
  if (currency === undefined || !/^[A-Z]{3}$/.test(currency)) {
    return `is written in ${what}, but the order has no currency code to check it against: fill in the currency code, or write the amount without a currency`;
  }
  if (money.codes.includes(currency)) return undefined;
  return `is written in ${what}, but the order's currency code is ${currency}: write the amount in ${currency} as a number alone, or correct the currency code`;
}

const listCodes = (codes: readonly string[]) =>
  codes.length === 1 ? codes[0]! : `${codes.slice(0, -1).join(', ')} or ${codes.at(-1)!}`;
