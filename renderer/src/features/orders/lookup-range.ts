/** The dispatch-date lookup's limits as the form explains them (the core enforces the same). */

export const SPAN_DAYS_PER_CALL = 3;
export const MAX_RANGE_DAYS = 31;

const DAY_MS = 86_400_000;

function day(date: string): number | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) return undefined;
  const ms = Date.parse(`${date}T00:00:00Z`);
  return Number.isNaN(ms) ? undefined : ms / DAY_MS;
}

/**
 * How a date range will be asked for: each call covers at most 3 days of span (4 calendar days, both ends
 * included), so N days take ceil(N / 4) calls. Returns a problem instead when the range cannot be asked for.
 */
export function describeRange(
  startDate: string,
  endDate: string,
): { calls: number; days: number } | { problem: string } {
  const start = day(startDate);
  const end = day(endDate);
  if (start === undefined || end === undefined) return { problem: 'Choose both dates.' };
  if (end < start) return { problem: 'The end date is before the start date.' };
  const days = end - start + 1;
  if (days > MAX_RANGE_DAYS) return { problem: `Choose at most ${MAX_RANGE_DAYS} days.` };
  return { days, calls: Math.ceil(days / (SPAN_DAYS_PER_CALL + 1)) };
}
