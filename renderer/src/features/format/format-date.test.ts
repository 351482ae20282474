import { describe, expect, it } from 'vitest';
import {
  dateFormats,
  dateInWords,
  formatDateTime,
  readTypedDate,
  TYPED_DATE_HINT,
  TYPED_DATE_PATTERN,
  writeTypedDate,
} from './format-date.js';

const instant = '2025-03-04T15:06:07Z';

describe('dates in the admin’s locale', () => {
  it('writes the same instant the way each locale does', () => {
    const gb = dateFormats('en-GB');
    const us = dateFormats('en-US');
    expect(gb.date('2025-03-04')).toBe('4 Mar 2025');
    expect(us.date('2025-03-04')).toBe('Mar 4, 2025');
    expect(gb.dateTime(instant)).toMatch(/^4 Mar 2025, \d\d:\d\d:07$/);
    expect(us.dateTime(instant)).toMatch(/^Mar 4, 2025, \d{1,2}:\d\d:07 [AP]M$/);
  });

  it('uses the runtime’s own locale when none is given', () => {
    const own = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
    expect(formatDateTime(instant)).toBe(own.format(Date.parse(instant)));
  });

  it('shows a calendar date as that day in every time zone, and odd text as it came', () => {
    // Midnight UTC on the 1st is still the 31st west of Greenwich; a calendar date must not move.
    const zone = process.env.TZ;
    process.env.TZ = 'America/New_York';
    try {
      expect(dateFormats('en-GB').dateTime('2025-01-01T00:00:00Z')).toMatch(/^31 Dec 2024/);
      expect(dateFormats('en-GB').date('2025-01-01')).toBe('1 Jan 2025');
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
    expect(dateFormats('en-GB').date('next Tuesday')).toBe('next Tuesday');
    expect(dateFormats('en-GB').dateTime('next Tuesday')).toBe('next Tuesday');
    expect(dateFormats('en-GB').date(null)).toBe('—');
  });

  it('reads a typed date day first or as ISO, whatever the locale, and refuses what is not a day', () => {
    expect(TYPED_DATE_HINT).toBe('dd/mm/yyyy or yyyy-mm-dd');
    expect(readTypedDate('04/03/2025', TYPED_DATE_PATTERN)).toBe('2025-03-04');
    expect(readTypedDate('4.3.2025', TYPED_DATE_PATTERN)).toBe('2025-03-04');
    expect(readTypedDate('13/04/2025', TYPED_DATE_PATTERN)).toBe('2025-04-13');
    expect(readTypedDate('2025-03-04', TYPED_DATE_PATTERN)).toBe('2025-03-04');
    expect(readTypedDate('04/13/2025', TYPED_DATE_PATTERN)).toBeUndefined();
    expect(readTypedDate('31/02/2025', TYPED_DATE_PATTERN)).toBeUndefined();
    expect(readTypedDate('4/3/25', TYPED_DATE_PATTERN)).toBeUndefined();
    expect(readTypedDate('tomorrow', TYPED_DATE_PATTERN)).toBeUndefined();
    expect(writeTypedDate('2025-03-04', TYPED_DATE_PATTERN)).toBe('04/03/2025');
    expect(writeTypedDate('2025-03-04', { order: ['day', 'month', 'year'], hint: 'dd.mm.yyyy' })).toBe('04.03.2025');
    // Said back with the month's name, so 03/04 is seen to be April.
    expect(dateInWords('2026-04-03')).toMatch(/^Friday,? 3 April 2026$/);
  });
});
