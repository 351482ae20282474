/**
 * Every date and time the screens show, in the admin's locale (the browser's language, or Electron's, which follows
 * the system) and the computer's time zone. One module, so a date reads the same on every screen. Exports and the
 * audit log keep ISO 8601: those are for machines and other time zones.
 */

export interface DateFormats {
  /** An ISO instant as date and time; the text itself if it is not one; "—" for none. */
  dateTime: (iso: string | null | undefined) => string;
  /** An ISO instant as a time of day. */
  time: (iso: string) => string;
  /** A calendar date (`YYYY-MM-DD`, shown as that day wherever the computer is) or an instant's day. */
  date: (value: string | null | undefined) => string;
}

/** How a date is written with digits, for a text field: the order of its parts and a hint. */
export interface DatePattern {
  order: readonly ('day' | 'month' | 'year')[];
  /** "dd/mm/yyyy", "mm/dd/yyyy", "yyyy-mm-dd"… */
  hint: string;
}

const CALENDAR_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** `locale` undefined means the runtime's own (the admin's); tests pass one to pin it. */
export function dateFormats(locale?: string): DateFormats {
  const dateTime = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'medium' });
  const timeOnly = new Intl.DateTimeFormat(locale, { timeStyle: 'medium' });
  const dayOnly = new Intl.DateTimeFormat(locale, { dateStyle: 'medium' });
  // A calendar date has no time zone: format its UTC midnight in UTC, so it never shifts a day.
  const calendarDay = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'UTC' });
  return {
    dateTime: (iso) => {
      if (!iso) return '—';
      const ms = Date.parse(iso);
      return Number.isNaN(ms) ? iso : dateTime.format(ms);
    },
    time: (iso) => {
      const ms = Date.parse(iso);
      return Number.isNaN(ms) ? iso : timeOnly.format(ms);
    },
    date: (value) => {
      if (!value) return '—';
      if (CALENDAR_DATE.test(value)) {
        const ms = Date.parse(`${value}T00:00:00Z`);
        return Number.isNaN(ms) ? value : calendarDay.format(ms);
      }
      const ms = Date.parse(value);
      return Number.isNaN(ms) ? value : dayOnly.format(ms);
    },
  };
}

/**
 * A date typed in the pattern's order ("22/11/2001" day first) or as ISO ("2001-11-22"), any separator, as
 * `YYYY-MM-DD`; undefined when it is not a real calendar date.
 */
export function readTypedDate(text: string, pattern: DatePattern): string | undefined {
  const numbers = text
    .trim()
    .split(/[^0-9]+/)
    .filter(Boolean);
  if (numbers.length !== 3) return undefined;
  const order = numbers[0]!.length === 4 ? (['year', 'month', 'day'] as const) : pattern.order;
  const value = { day: 0, month: 0, year: 0 };
  order.forEach((part, index) => (value[part] = Number(numbers[index])));
  if (numbers[order.indexOf('year')]!.length !== 4) return undefined;
  const ms = Date.UTC(value.year, value.month - 1, value.day);
  const back = new Date(ms);
  if (back.getUTCFullYear() !== value.year || back.getUTCMonth() !== value.month - 1 || back.getUTCDate() !== value.day)
    return undefined;
  return back.toISOString().slice(0, 10);
}

/** `YYYY-MM-DD` written in the pattern's order, for a text field to show. */
export function writeTypedDate(iso: string, pattern: DatePattern): string {
  const match = CALENDAR_DATE.exec(iso);
  if (!match) return iso;
  const value = { year: match[1]!, month: match[2]!, day: match[3]! };
  const separator = /^[a-z]+(.+?)[a-z]+/.exec(pattern.hint)?.[1] ?? '/';
  return pattern.order.map((part) => value[part]).join(separator);
}

/**
 * How the app's date fields read a typed date: day first, or ISO, whatever the browser's language. Rx Batch is for
 * UK suppliers, whose files write dates day first or as ISO (the importer never reads one month first); a US-English
 * browser's mm/dd/yyyy would read 03/04/2026 as 4 March without a word.
 */
export const TYPED_DATE_PATTERN: DatePattern = { order: ['day', 'month', 'year'], hint: 'dd/mm/yyyy' };
export const TYPED_DATE_HINT = `${TYPED_DATE_PATTERN.hint} or yyyy-mm-dd`;

const inWords = new Intl.DateTimeFormat('en-GB', {
  weekday: 'long',
  day: 'numeric',
  month: 'long',
  year: 'numeric',
  timeZone: 'UTC',
});

/** A calendar date (`YYYY-MM-DD`) with its month's name, so a typed date shows which day it was read as. */
export function dateInWords(iso: string): string {
  const ms = Date.parse(`${iso}T00:00:00Z`);
  return Number.isNaN(ms) ? iso : inWords.format(ms);
}

const local = dateFormats();

export const formatDateTime = local.dateTime;
export const formatTime = local.time;
export const formatDate = local.date;
