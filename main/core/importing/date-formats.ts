import type { DateFormat } from '../model/mapping-profile.js';

/**
 * Reads a date written in one of the profile formats into `YYYY-MM-DD`. Without a chosen format it reads only
 * what cannot be misread: ISO dates, month names, and day/month pairs where one part is over 12 (or both are
 * equal). `03/04/1980` without a format is an error, never a guess: a wrong date of birth matches another person.
 */

export type DateResult = { ok: true; iso: string } | { ok: false; code: string; reason: string };

/** `hl7` is the HL7 TS/DTM form `YYYYMMDD[HHMM[SS]][+ZZZZ]`, used by the HL7 map. */
export type DateInputFormat = DateFormat | 'hl7';

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

const FULL_MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

function calendarDate(year: number, month: number, day: number): DateResult {
  const date = new Date(Date.UTC(year, month - 1, day));
  if (year < 1000 || date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) {
    return { ok: false, code: 'date.invalid', reason: 'is not a real calendar date' };
  }
  return { ok: true, iso: `${pad(year, 4)}-${pad(month)}-${pad(day)}` };
}

/** Two-digit years: the latest year not after `today` (so '79' is 1979 and '05' is 2005 in 2025). */
function fullYear(text: string, today: Date): number {
  if (text.length === 4) return Number(text);
  const yy = Number(text);
  const current = today.getUTCFullYear();
  const candidate = Math.floor(current / 100) * 100 + yy;
  return candidate > current ? candidate - 100 : candidate;
}

// The date, then an optional time (hour, minutes) and time zone (Z or an offset).
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):\d{2}(?::\d{2}(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
// ISO 8601's basic form (what HL7 and many database exports write): YYYYMMDD. A day-first or month-first 8-digit
// date cannot pass for it, since its "month" would be the century (18, 19, 20).
const ISO_BASIC = /^(\d{4})(\d{2})(\d{2})$/;
// A time after a written date: a spreadsheet or database export of a date column formatted as date and time
// (`15/01/1980 00:00`, `15-Jan-1980 12:00:00 AM`). No time zone: the date is the one written.
const TIME = String.raw`(?:[ T]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?: ?[AaPp][Mm])?)?`;
const NUMERIC = new RegExp(String.raw`^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4}|\d{2})${TIME}$`);
const MONTH_NAME = new RegExp(String.raw`^(\d{1,2})[-/ ]([A-Za-z]{3,9})[-/ ](\d{4}|\d{2})${TIME}$`);
const HL7_TS = /^(\d{4})(\d{2})(\d{2})(?:\d{2}(?:\d{2}(?:\d{2}(?:\.\d+)?)?)?)?(?:[+-]\d{4})?$/;

function monthNumber(name: string): number | undefined {
  const index = MONTHS.indexOf(name.slice(0, 3).toLowerCase());
  if (index < 0) return undefined;
  const lower = name.toLowerCase();
  return lower.length === 3 || FULL_MONTHS[index] === lower || lower === 'sept' ? index + 1 : undefined;
}

const expected: Record<DateInputFormat, string> = {
  iso: 'YYYY-MM-DD',
  'dd/MM/yyyy': 'dd/MM/yyyy',
  'd/M/yy': 'd/M/yy',
  'dd-MMM-yyyy': 'dd-MMM-yyyy (e.g. 15-Jan-1980)',
  'MM/dd/yyyy': 'MM/dd/yyyy',
  hl7: 'YYYYMMDD',
};

// A spreadsheet's date serial number (days since 1900, or 1904 on an old Mac): 29235 is 15 January 1980 or 1984.
// Five digits are 1927 to 2173; four could be a year.
const SERIAL = /^\d{5}(?:\.\d+)?$/;
// HL7 DTM allows a lower precision: the year (YYYY) or the year and month (YYYYMM) alone.
const HL7_YEAR_MONTH = /^(\d{4})(\d{2})?(?:[+-]\d{4})?$/;

/** A calendar date (`YYYY-MM-DD`) as a format writes it, for saying how a value should have been written. */
const WRITERS: Record<DateInputFormat, (year: string, month: string, day: string) => string> = {
  iso: (year, month, day) => `${year}-${month}-${day}`,
  'dd/MM/yyyy': (year, month, day) => `${day}/${month}/${year}`,
  'd/M/yy': (year, month, day) => `${Number(day)}/${Number(month)}/${year.slice(2)}`,
  'dd-MMM-yyyy': (year, month, day) => {
    const name = MONTHS[Number(month) - 1]!;
    return `${day}-${name[0]!.toUpperCase()}${name.slice(1)}-${year}`;
  },
  'MM/dd/yyyy': (year, month, day) => `${month}/${day}/${year}`,
  hl7: (year, month, day) => `${year}${month}${day}`,
};

/**
 * Reads `text` in `format` (as the file's head says). A value written another way that has only one reading
 * (15/01/1980 where YYYY-MM-DD is expected) is still refused, never taken, but the reason says how to write it, so
 * the cell can be fixed where it stands.
 */
export function parseDate(text: string, format: DateInputFormat | undefined, today: Date): DateResult {
  const result = readDate(text, format, today);
  if (result.ok || result.reason !== notWrittenAs(format)) return result;
  const guess = format === undefined ? undefined : readDate(text, undefined, today);
  const other = guess?.ok ? guess : yearFirst(text);
  if (other?.ok !== true) return other?.code === 'date.invalid' ? other : result;
  const [year, month, day] = other.iso.split('-') as [string, string, string];
  return { ...result, reason: `${result.reason}: write it as ${WRITERS[format ?? 'iso'](year, month, day)}` };
}

// Year first with another separator or without zero padding (1980/01/15, 1980.01.15, 1980-1-15, as some
// databases and East Asian or Scandinavian locales export): one reading, but not the ISO form, so it gets a
// suggestion rather than being taken.
const YEAR_FIRST = new RegExp(String.raw`^(\d{4})[/.-](\d{1,2})[/.-](\d{1,2})${TIME}$`);

function yearFirst(text: string): DateResult | undefined {
  const m = YEAR_FIRST.exec(text.trim());
  return m ? calendarDate(Number(m[1]), Number(m[2]), Number(m[3])) : undefined;
}

/** Why `value` is no date in `format` (a function, not a closure in readDate: that runs for every date read). */
function unreadable(value: string, format: DateInputFormat | undefined): DateResult {
  if (format !== 'hl7' && SERIAL.test(value)) {
    return {
      ok: false,
      code: 'date.format',
      reason:
        "looks like a spreadsheet's date serial number (a count of days, not a date): format the column as a date, YYYY-MM-DD, and export again",
    };
  }
  return { ok: false, code: 'date.format', reason: notWrittenAs(format) };
}

/** The reason for a date not written as `format` (or, with none, in no form the importer reads). */
function notWrittenAs(format: DateInputFormat | undefined): string {
  return format ? `is not written as ${expected[format]}` : 'is not a date the importer can read';
}

function readDate(text: string, format: DateInputFormat | undefined, today: Date): DateResult {
  const value = text.trim();
  if (format === 'hl7') {
    const m = HL7_TS.exec(value);
    if (m) return calendarDate(Number(m[1]), Number(m[2]), Number(m[3]));
    const partial = HL7_YEAR_MONTH.exec(value);
    if (partial) {
      return {
        ok: false,
        code: 'date.format',
        reason: `gives only the year${partial[2] ? ' and month' : ''} (HL7 allows that precision); a date needs the day too, as YYYYMMDD`,
      };
    }
    return unreadable(value, format);
  }
  const iso = ISO.exec(value);
  if (iso && (format === undefined || format === 'iso')) {
    const date = calendarDate(Number(iso[1]), Number(iso[2]), Number(iso[3]));
    // A date and time in a time zone from midday on is most often a midnight converted from another zone (a
    // date saved as midnight in British Summer Time is 23:00Z the day before; a JavaScript export writes every
    // date so): the date it stands for may be the next day. Before midday, the nearest midnight is its own day's.
    if (date.ok && iso[5] !== undefined && Number(iso[4]) >= 12) return zonedDateAmbiguous(date.iso, iso[5]);
    return date;
  }
  const basic = ISO_BASIC.exec(value);
  // Only a month 01-12 makes it one (15011980, day first, is no date of this form).
  if (basic && (format === undefined || format === 'iso') && Number(basic[2]) >= 1 && Number(basic[2]) <= 12) {
    return calendarDate(Number(basic[1]), Number(basic[2]), Number(basic[3]));
  }
  const named = MONTH_NAME.exec(value);
  if (named && (format === undefined || format === 'dd-MMM-yyyy')) {
    const month = monthNumber(named[2]!);
    if (month === undefined) return { ok: false, code: 'date.format', reason: `has an unknown month '${named[2]}'` };
    if (named[3]!.length === 2 && format === undefined) return ambiguousCentury();
    return calendarDate(fullYear(named[3]!, today), month, Number(named[1]));
  }
  const numeric = NUMERIC.exec(value);
  if (!numeric) return unreadable(value, format);
  const [first, second, yearText] = [Number(numeric[1]), Number(numeric[2]), numeric[3]!];
  switch (format) {
    case 'dd/MM/yyyy':
      return yearText.length === 4 ? calendarDate(Number(yearText), second, first) : unreadable(value, format);
    case 'MM/dd/yyyy':
      return yearText.length === 4 ? calendarDate(Number(yearText), first, second) : unreadable(value, format);
    case 'd/M/yy':
      return calendarDate(fullYear(yearText, today), second, first);
    case undefined: {
      if (yearText.length === 2) return ambiguousCentury();
      // Only one reading exists when a part is over 12 (it must be the day) or both parts are the same.
      if (first === second || first > 12) return calendarDate(Number(yearText), second, first);
      if (second > 12) return calendarDate(Number(yearText), first, second);
      return {
        ok: false,
        code: 'date.ambiguous',
        reason: `could be ${first} ${MONTHS[second - 1]} or ${second} ${MONTHS[first - 1]}: choose the date format in the mapping profile`,
      };
    }
    default:
      return unreadable(value, format);
  }
}

function zonedDateAmbiguous(written: string, zone: string): DateResult {
  const next = new Date(`${written}T00:00:00Z`);
  next.setUTCDate(next.getUTCDate() + 1);
  const say = (iso: string) => {
    const [year, month, day] = iso.split('-').map(Number) as [number, number, number];
    return `${day} ${MONTHS[month - 1]!.replace(/^./, (c) => c.toUpperCase())} ${year}`;
  };
  return {
    ok: false,
    code: 'date.ambiguous',
    reason:
      `is a date and time in time zone ${zone === 'Z' ? 'UTC (Z)' : zone}, late in the day: it may be ${say(written)}, ` +
      `or midnight of ${say(next.toISOString().slice(0, 10))} in a zone ahead of it (as British Summer Time is of UTC); ` +
      'write the date alone, as YYYY-MM-DD',
  };
}

function ambiguousCentury(): DateResult {
  return {
    ok: false,
    code: 'date.ambiguous',
    reason: 'has a two-digit year: choose the date format (d/M/yy) in the mapping profile',
  };
}
