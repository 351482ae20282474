import { describe, expect, it } from 'vitest';
import { parseDate } from './date-formats.js';

const TODAY = new Date('2025-06-01T00:00:00Z');
const read = (text: string, format?: Parameters<typeof parseDate>[1]) => parseDate(text, format, TODAY);

describe('dates in import files', () => {
  it.each([
    ['1980-01-15', 'iso', '1980-01-15'],
    ['1980-01-15T00:00:00Z', 'iso', '1980-01-15'],
    ['15/01/1980', 'dd/MM/yyyy', '1980-01-15'],
    ['3/4/1980', 'dd/MM/yyyy', '1980-04-03'],
    ['03/04/1980', 'MM/dd/yyyy', '1980-03-04'],
    ['3/4/80', 'd/M/yy', '1980-04-03'],
    ['3/4/05', 'd/M/yy', '2005-04-03'],
    ['15-Jan-1980', 'dd-MMM-yyyy', '1980-01-15'],
    ['15-January-1980', 'dd-MMM-yyyy', '1980-01-15'],
    ['19800115', 'hl7', '1980-01-15'],
    ['198001151230+0100', 'hl7', '1980-01-15'],
    ['19800115', 'iso', '1980-01-15'],
    ['1980-01-15T09:30:00+01:00', 'iso', '1980-01-15'],
    ['1980-06-15T00:00:00+01:00', 'iso', '1980-06-15'],
    ['1980-01-15 14:30', 'iso', '1980-01-15'],
    ['15/01/1980 00:00', 'dd/MM/yyyy', '1980-01-15'],
    ['15/01/1980 00:00:00', 'dd/MM/yyyy', '1980-01-15'],
    ['01/15/1980 12:00:00 AM', 'MM/dd/yyyy', '1980-01-15'],
    ['15-Jan-1980 00:00', 'dd-MMM-yyyy', '1980-01-15'],
  ] as const)('reads %s as %s', (text, format, iso) => {
    expect(read(text, format)).toEqual({ ok: true, iso });
  });

  it('reads without a chosen format only what has one meaning', () => {
    expect(read('1980-01-15')).toEqual({ ok: true, iso: '1980-01-15' });
    expect(read('25/12/1961')).toEqual({ ok: true, iso: '1961-12-25' });
    expect(read('12/25/1961')).toEqual({ ok: true, iso: '1961-12-25' });
    expect(read('05/05/1990')).toEqual({ ok: true, iso: '1990-05-05' });
    expect(read('15-Jan-1980')).toEqual({ ok: true, iso: '1980-01-15' });
  });

  it('never takes the date of a date-time in a time zone late in the day, which may be the next day', () => {
    for (const text of ['1980-06-14T23:00:00.000Z', '1980-06-14T19:00:00-04:00', '1980-06-14 12:00+00:00']) {
      expect(read(text)).toMatchObject({ ok: false, code: 'date.ambiguous' });
      expect(read(text, 'iso')).toMatchObject({ ok: false, code: 'date.ambiguous' });
    }
    expect(read('1980-06-14T23:00:00.000Z')).toMatchObject({
      reason:
        'is a date and time in time zone UTC (Z), late in the day: it may be 14 Jun 1980, or midnight of 15 Jun 1980 in a zone ahead of it (as British Summer Time is of UTC); write the date alone, as YYYY-MM-DD',
    });
    // No time zone: a local date and time, whose date is the one written.
    expect(read('1980-06-14T23:00:00')).toEqual({ ok: true, iso: '1980-06-14' });
  });

  it('reads YYYYMMDD only as ISO: a day-first run of digits is no date of that form', () => {
    expect(read('19800115')).toEqual({ ok: true, iso: '1980-01-15' });
    expect(read('15011980')).toMatchObject({ ok: false, code: 'date.format' });
    expect(read('19800230')).toMatchObject({ ok: false, code: 'date.invalid' });
    expect(read('19800115', 'dd/MM/yyyy')).toMatchObject({ ok: false, code: 'date.format' });
  });

  it('never guesses the order of day and month, nor the century', () => {
    expect(read('03/04/1980 00:00')).toMatchObject({ ok: false, code: 'date.ambiguous' });
    expect(read('03/04/1980')).toMatchObject({ ok: false, code: 'date.ambiguous' });
    expect(read('25/12/61')).toMatchObject({ ok: false, code: 'date.ambiguous' });
  });

  it('refuses dates that do not exist or do not match the chosen format', () => {
    expect(read('1980-02-30', 'iso')).toMatchObject({ ok: false, code: 'date.invalid' });
    expect(read('31/04/1980', 'dd/MM/yyyy')).toMatchObject({ ok: false, code: 'date.invalid' });
    expect(read('15/01/1980', 'iso')).toMatchObject({ ok: false, code: 'date.format' });
    expect(read('1980-01-15', 'dd/MM/yyyy')).toMatchObject({ ok: false, code: 'date.format' });
    expect(read('15-Foo-1980', 'dd-MMM-yyyy')).toMatchObject({ ok: false, code: 'date.format' });
    expect(read('yesterday')).toMatchObject({ ok: false, code: 'date.format' });
  });

  it('says how to write a date written another way when it has only one reading, and still refuses it', () => {
    expect(read('15/01/1980', 'iso')).toEqual({
      ok: false,
      code: 'date.format',
      reason: 'is not written as YYYY-MM-DD: write it as 1980-01-15',
    });
    expect(read('15 January 1980', 'iso')).toMatchObject({
      reason: 'is not written as YYYY-MM-DD: write it as 1980-01-15',
    });
    expect(read('1980-01-15', 'dd/MM/yyyy')).toMatchObject({
      reason: 'is not written as dd/MM/yyyy: write it as 15/01/1980',
    });
    expect(read('1980-01-05', 'dd-MMM-yyyy')).toMatchObject({
      reason: 'is not written as dd-MMM-yyyy (e.g. 15-Jan-1980): write it as 05-Jan-1980',
    });
    // Two readings (3 April or 4 March): no guess offered.
    expect(read('03/04/1980', 'iso')).toMatchObject({ reason: 'is not written as YYYY-MM-DD' });
  });

  it('says how to write a date written year first with slashes, dots or no zero padding, and still refuses it', () => {
    for (const text of ['1980/01/15', '1980.01.15', '1980-1-15', '1980/1/15 00:00']) {
      expect(read(text, 'iso')).toEqual({
        ok: false,
        code: 'date.format',
        reason: 'is not written as YYYY-MM-DD: write it as 1980-01-15',
      });
      expect(read(text)).toEqual({
        ok: false,
        code: 'date.format',
        reason: 'is not a date the importer can read: write it as 1980-01-15',
      });
    }
    expect(read('1980/01/15', 'dd/MM/yyyy')).toMatchObject({
      reason: 'is not written as dd/MM/yyyy: write it as 15/01/1980',
    });
    expect(read('1980/01/15', 'hl7')).toMatchObject({ reason: 'is not written as YYYYMMDD: write it as 19800115' });
    expect(read('1980/02/30', 'iso')).toMatchObject({ ok: false, code: 'date.invalid' });
  });

  it('says what a spreadsheet serial number or an HL7 date without its day is', () => {
    for (const format of ['iso', 'dd/MM/yyyy', undefined] as const) {
      expect(read('29235', format)).toEqual({
        ok: false,
        code: 'date.format',
        reason:
          "looks like a spreadsheet's date serial number (a count of days, not a date): format the column as a date, YYYY-MM-DD, and export again",
      });
    }
    expect(read('1980', 'iso')).toMatchObject({ reason: 'is not written as YYYY-MM-DD' });
    expect(read('198001', 'hl7')).toEqual({
      ok: false,
      code: 'date.format',
      reason: 'gives only the year and month (HL7 allows that precision); a date needs the day too, as YYYYMMDD',
    });
    expect(read('1980', 'hl7')).toMatchObject({
      reason: 'gives only the year (HL7 allows that precision); a date needs the day too, as YYYYMMDD',
    });
    expect(read('29235', 'hl7')).toMatchObject({ reason: 'is not written as YYYYMMDD' });
  });
});
