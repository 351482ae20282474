/** Counts in words, the same in the app and the CLI: "1 order", "1,234 orders". */

const counts = new Intl.NumberFormat('en-GB');

export function formatCount(n: number): string {
  return counts.format(n);
}

/** "1 order", "2 orders". */
export function plural(n: number, singular: string, pluralForm = `${singular}s`): string {
  return `${formatCount(n)} ${n === 1 ? singular : pluralForm}`;
}
