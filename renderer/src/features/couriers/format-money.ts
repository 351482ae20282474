const formatters = new Map<string, Intl.NumberFormat>();

/** An amount in its currency, British style (£3.95). An unknown currency code still shows the amount and code. */
export function formatMoney(amount: number, currencyCode: string): string {
  let formatter = formatters.get(currencyCode);
  if (!formatter) {
    try {
      formatter = new Intl.NumberFormat('en-GB', { style: 'currency', currency: currencyCode });
    } catch {
      return `${amount.toFixed(2)} ${currencyCode}`;
    }
    formatters.set(currencyCode, formatter);
  }
  return formatter.format(amount);
}
