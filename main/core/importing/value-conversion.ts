import { parseDate, type DateInputFormat } from './date-formats.js';
import type { FieldKind } from '../model/field-catalogue.js';

/**
 * Turns one cell's text into the body value its field needs. Text stays text exactly, so phone numbers,
 * postcodes and codes keep their leading zeros and long digit strings keep every digit.
 */

export type Converted = { ok: true; value: string | number } | { ok: false; code: string; reason: string };

const WHOLE = /^[-+]?\d+$/;
const DECIMAL = /^[-+]?(?:\d+\.?\d*|\.\d+)$/;
// What Excel shows for a long number it has already rounded, e.g. 4.21096E+16.
const SCIENTIFIC = /^\d+(?:[.,]\d+)?[eE][+]?\d+$/;

export function convertValue(
  text: string,
  kind: FieldKind,
  dateFormat: DateInputFormat | undefined,
  today: Date,
): Converted {
  switch (kind) {
    case 'text':
      return { ok: true, value: text };
    case 'upper':
      return { ok: true, value: text.toUpperCase() };
    case 'dmd':
      if (SCIENTIFIC.test(text)) {
        return {
          ok: false,
          code: 'dmd.excelMangled',
          reason:
            'looks like a spreadsheet turned the code into a rounded number; format the column as text and export again',
        };
      }
      return { ok: true, value: text };
    case 'int': {
      if (WHOLE.test(text)) {
        const value = Number(text);
        if (Number.isSafeInteger(value)) return { ok: true, value };
        return { ok: false, code: 'value.tooLarge', reason: 'is too large' };
      }
      if (DECIMAL.test(text)) return { ok: false, code: 'value.notWholeNumber', reason: 'is not a whole number' };
      return { ok: false, code: 'value.notNumber', reason: 'is not a number' };
    }
    case 'number':
      if (DECIMAL.test(text) && Number.isFinite(Number(text))) return { ok: true, value: Number(text) };
      return { ok: false, code: 'value.notNumber', reason: 'is not a number' };
    case 'date': {
      const parsed = parseDate(text, dateFormat, today);
      return parsed.ok ? { ok: true, value: parsed.iso } : { ok: false, code: parsed.code, reason: parsed.reason };
    }
  }
}
