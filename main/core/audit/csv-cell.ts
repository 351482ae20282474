import { csvField } from '../../../shared/csv-formula.js';

/**
 * One CSV cell of the audit export, RFC 4180 quoting, made safe for spreadsheets by the rule every CSV the app
 * writes follows (shared/csv-formula.ts): a text that starts with = + - @ TAB CR (and the rest of FORMULA_STARTS),
 * or has one after a separator another spreadsheet may split on, would run as a formula (CSV injection), so it gets
 * an apostrophe there, which spreadsheets show as text, and is quoted. Numbers and booleans are written through the same rule (a negative number would read as text).
 */
export function csvCell(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '';
  return csvField(String(value));
}

/** A CSV record, CRLF-terminated as RFC 4180 says. */
export function csvRow(values: ReadonlyArray<string | number | boolean | null | undefined>): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}
