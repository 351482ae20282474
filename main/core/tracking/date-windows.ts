/**
 * The date-range status endpoint takes at most a 3-day span (end − start ≤ 3 days, both dates inclusive), so a
 * longer span is asked for as consecutive windows that neither overlap nor leave a day out.
 */

export const MAX_DATE_RANGE_SPAN_DAYS = 3;

export interface DateWindow {
  /** `YYYY-MM-DD` */
  startDate: string;
  endDate: string;
}

const DAY_MS = 86_400_000;

function dayNumber(date: string): number {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) throw new RangeError(`"${date}" is not a YYYY-MM-DD date`);
  const ms = Date.parse(`${date}T00:00:00Z`);
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== date) {
    throw new RangeError(`"${date}" is not a calendar date`);
  }
  return ms / DAY_MS;
}

const isoDay = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** The UTC calendar date of an instant, as the service's dispatch dates are written. */
export function utcDate(instant: Date): string {
  return instant.toISOString().slice(0, 10);
}

export function addDays(date: string, days: number): string {
  return isoDay(dayNumber(date) + days);
}

/** Splits [startDate, endDate] into windows of at most `maxSpanDays` span each. */
export function dateWindows(startDate: string, endDate: string, maxSpanDays = MAX_DATE_RANGE_SPAN_DAYS): DateWindow[] {
  const start = dayNumber(startDate);
  const end = dayNumber(endDate);
  if (end < start) throw new RangeError(`${endDate} is before ${startDate}`);
  if (!Number.isInteger(maxSpanDays) || maxSpanDays < 0) throw new RangeError('maxSpanDays must be a whole number');
  const windows: DateWindow[] = [];
  for (let from = start; from <= end; from += maxSpanDays + 1) {
    windows.push({ startDate: isoDay(from), endDate: isoDay(Math.min(from + maxSpanDays, end)) });
  }
  return windows;
}
