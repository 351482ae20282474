import { parseDate, type DateInputFormat } from './date-formats.js';
import type { FieldKind } from '../model/field-catalogue.js';

/**
 * Turns one cell's text into the body value its field needs. Text stays text exactly, so phone numbers,
 * postcodes and codes keep their leading zeros and long digit strings keep every digit.
 */

export type Converted = { ok: true; value: string | number } | { ok: false; code: string; reason: string };

const WHOLE = /^[-+]?\d+$/;
// A whole number written with zero decimals: HL7 NM values (RXE-10 `30.000`) and database exports write them so.
const WHOLE_ZERO_DECIMALS = /^([-+]?\d+)\.0+$/;
// HL7 NM also lets the point end the number (`32.`) or start it (`.0`), as senders' decimal formatting writes them.
const WHOLE_TRAILING_POINT = /^([-+]?\d+)\.$/;
const ZERO_NO_INTEGER = /^[-+]?\.0+$/;
// Digits, then the decimals only after a point: `\d+\.?\d*` let the two runs of digits share a long number, which
// took time in the square of its length.
const DECIMAL = /^[-+]?(?:\d+(?:\.\d*)?|\.\d+)$/;
// What Excel shows for a long number it has already rounded, e.g. 4.21096E+16.
const SCIENTIFIC = /^\d+(?:[.,]\d+)?[eE][+]?\d+$/;
const ROUNDED_REASON =
  'looks like a spreadsheet turned the number into a rounded one, losing digits; format the column as text and export again';

/**
 * The same text in an HL7 field is no spreadsheet's doing: the sending system wrote a floating-point number, which
 * NM cannot hold. What it reads as is said only as a reading, since a float may have dropped digits.
 */
function exponentReason(text: string, whole: boolean): string {
  const value = text.includes(',') ? NaN : Number(text);
  const read = Number.isFinite(value) && (!whole || Number.isSafeInteger(value)) && !/e/i.test(String(value));
  return `is written with an exponent, which an HL7 number (NM) cannot have, and digits may have been lost in writing it so: ask the sender to send the number as digits alone${read ? ` (it reads as ${String(value)}, if none were lost)` : ''}`;
}
const HL7_ROUNDED_CODE_REASON =
  "is written as a number with an exponent, which has lost the code's digits: ask the sender to send the code as its digits, as text";

/**
 * Numbers written with a comma, as a spreadsheet in a comma-decimal locale (most of Europe) writes them. Where the
 * file is semicolon-delimited (what such a spreadsheet writes, its comma being taken) a comma followed by one or two
 * digits can only be a decimal comma (thousands come in threes): `24,50` is read as 24.50. Anything else with a comma
 * is refused saying what was found and what to write, never guessed: `1,250` is 1250 or 1.25 depending on who wrote it.
 */
const DECIMAL_COMMA = /^([-+]?\d+),(\d{1,2})$/;
const THOUSANDS_COMMAS = /^[-+]?\d{1,3}(?:,\d{3})+$/;
const THOUSANDS_STOPS_DECIMAL_COMMA = /^([-+]?\d{1,3}(?:\.\d{3})+),(\d+)$/;

/**
 * In a semicolon file (a comma-decimal spreadsheet), `1.000` or `12.500`: a full stop before groups of three digits
 * is how such a locale separates thousands, so `1.000` is one thousand there, and one where a full stop is the
 * decimal point. Read as either it could send a quantity or a price a thousand times off: refused, saying both.
 */
const THOUSANDS_STOPS = /^[-+]?\d{1,3}(?:\.\d{3})+$/;

function thousandsStopReason(text: string): string {
  return `has a full stop before three digits, which in a file separated by semicolons (as a spreadsheet that writes decimals with a comma saves it) separates thousands (${text.replaceAll('.', '')}), and elsewhere is a decimal point: write the number with no thousands separator (and a decimal comma or full stop only before decimals)`;
}

/** Why a number with a comma is not read, and what to write instead; undefined when it holds no comma. */
function commaReason(text: string, whole: boolean): string | undefined {
  if (!text.includes(',')) return undefined;
  if (whole) {
    const digits = text.replace(/[^\d-+]/g, '');
    return `has a comma: write a whole number as digits only${THOUSANDS_COMMAS.test(text) ? ` (${digits})` : ''}, with no thousands separator`;
  }
  const decimal = DECIMAL_COMMA.exec(text);
  if (decimal) return `has a decimal comma: write ${decimal[1]}.${decimal[2]}, with a full stop`;
  if (THOUSANDS_COMMAS.test(text)) {
    const [head = '', ...rest] = text.split(',');
    return `has a comma, which may separate thousands (${head}${rest.join('')}) or decimals (${head}.${rest.join('')}): write it with a full stop for decimals and no thousands separator`;
  }
  const european = THOUSANDS_STOPS_DECIMAL_COMMA.exec(text);
  if (european) {
    return `has full stops between thousands and a decimal comma: write ${european[1]!.replaceAll('.', '')}.${european[2]}`;
  }
  return 'has a comma: write it with a full stop for decimals and no thousands separator (e.g. 24.50)';
}

// A number with a unit or a word after it: `32 tablets`, `28 tabs`, `32.5mg`, RXE-10 `32 TAB`.
const WITH_UNIT = /^([-+]?\d+(?:\.\d+)?)\s*([A-Za-z][A-Za-z.]*(?:\s+[A-Za-z][A-Za-z.]*)*)$/;

/** Why a number with a unit after it is not read; undefined when it is not one. */
function unitReason(text: string): string | undefined {
  const unit = WITH_UNIT.exec(text);
  if (!unit) return undefined;
  return `has ${quote(unit[2]!)} after the number: write the number alone (${unit[1]}); the unit is not part of it`;
}

const quote = (text: string) => `'${text.length > 20 ? `${text.slice(0, 17)}...` : text}'`;

export interface ConvertOptions {
  /** The file is semicolon-delimited: a decimal comma (`24,50`) is read as one, and `1.000` is refused. */
  decimalComma?: boolean;
  /** The text is an HL7 field's: reasons speak of the sender, not of a spreadsheet. */
  hl7?: boolean;
}

export function convertValue(
  text: string,
  kind: FieldKind,
  dateFormat: DateInputFormat | undefined,
  today: Date,
  options: ConvertOptions = {},
): Converted {
  if ((kind === 'int' || kind === 'number') && options.decimalComma && THOUSANDS_STOPS.test(text)) {
    return { ok: false, code: 'value.thousandsStop', reason: thousandsStopReason(text) };
  }
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
          reason: options.hl7
            ? HL7_ROUNDED_CODE_REASON
            : 'looks like a spreadsheet turned the code into a rounded number; format the column as text and export again',
        };
      }
      if (WHOLE_ZERO_DECIMALS.test(text)) {
        // A number column of a database export (`42109611000001109.0`): 17 digits do not survive a decimal type.
        return {
          ok: false,
          code: 'dmd.excelMangled',
          reason: options.hl7
            ? "was written as a decimal number ('.0' after it), as a sending system writes a number it holds as a decimal, which may have rounded its last digits (a decimal keeps about 15): ask the sender to send the code as its digits, as text"
            : "was written as a decimal number ('.0' after it), as an export writes a column of numbers, which may have rounded its last digits (a number column keeps about 15); export the column as text",
        };
      }
      return { ok: true, value: text };
    case 'int': {
      if (ZERO_NO_INTEGER.test(text)) return { ok: true, value: 0 };
      // A semicolon file's `32,00` is its `32.00`: the whole number; `32,50` is a fraction.
      const comma = options.decimalComma ? DECIMAL_COMMA.exec(text) : null;
      if (comma && /^0+$/.test(comma[2]!)) {
        const value = Number(comma[1]) + 0;
        return Number.isSafeInteger(value)
          ? { ok: true, value }
          : { ok: false, code: 'value.tooLarge', reason: 'is too large' };
      }
      if (comma) return { ok: false, code: 'value.notWholeNumber', reason: 'is not a whole number' };
      const zeros = WHOLE_ZERO_DECIMALS.exec(text) ?? WHOLE_TRAILING_POINT.exec(text);
      const digits = zeros ? zeros[1]! : text;
      if (zeros || WHOLE.test(text)) {
        const value = Number(digits);
        if (Number.isSafeInteger(value)) return { ok: true, value };
        return { ok: false, code: 'value.tooLarge', reason: 'is too large' };
      }
      if (DECIMAL.test(text)) return { ok: false, code: 'value.notWholeNumber', reason: 'is not a whole number' };
      if (SCIENTIFIC.test(text)) {
        return {
          ok: false,
          code: 'value.excelMangled',
          reason: options.hl7 ? exponentReason(text, true) : ROUNDED_REASON,
        };
      }
      const commaText = commaReason(text, true);
      if (commaText) return { ok: false, code: 'value.comma', reason: commaText };
      return { ok: false, code: 'value.notNumber', reason: unitReason(text) ?? 'is not a number' };
    }
    case 'number': {
      if (DECIMAL.test(text) && Number.isFinite(Number(text))) return { ok: true, value: Number(text) };
      const decimal = options.decimalComma ? DECIMAL_COMMA.exec(text) : null;
      if (decimal) return { ok: true, value: Number(`${decimal[1]}.${decimal[2]}`) };
      if (SCIENTIFIC.test(text)) {
        return {
          ok: false,
          code: 'value.excelMangled',
          reason: options.hl7 ? exponentReason(text, false) : ROUNDED_REASON,
        };
      }
      const comma = commaReason(text, false);
      if (comma) return { ok: false, code: 'value.comma', reason: comma };
      return { ok: false, code: 'value.notNumber', reason: unitReason(text) ?? 'is not a number' };
    }
    case 'date': {
      const parsed = parseDate(text, dateFormat, today);
      return parsed.ok ? { ok: true, value: parsed.iso } : { ok: false, code: parsed.code, reason: parsed.reason };
    }
  }
}
