import fc from 'fast-check';
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import {
  FORMULA_STARTS,
  csvField,
  csvRecord,
  neutraliseCell,
  quoteField,
  restoreCell,
  startsWithFormula,
} from './csv-formula.js';

/** Texts dense in what matters here: formula starts, apostrophes, quotes, delimiters, line breaks, any Unicode. */
const cellText = fc.oneof(
  fc.string({ unit: 'grapheme' }),
  fc
    .array(fc.constantFrom(...FORMULA_STARTS, "'", '"', ',', ';', ' ', 'a', '1', '£', 'é', '\ufeff'), { maxLength: 8 })
    .map((chars) => chars.join('')),
  fc.tuple(fc.constantFrom("'", "''", "'''"), fc.constantFrom(...FORMULA_STARTS), fc.string()).map((p) => p.join('')),
);

describe('neutraliseCell and restoreCell', () => {
  it.each([
    ['=1+2', "'=1+2"],
    ['+44 161 496 0000', "'+44 161 496 0000"],
    ['-0161 496 0000', "'-0161 496 0000"],
    ['-12.5', "'-12.5"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\tcmd', "'\tcmd"],
    ['\rcmd', "'\rcmd"],
    ['\ncmd', "'\ncmd"],
    ['\uff1dcmd', "'\uff1dcmd"],
    ["'=x", "''=x"],
    ["''-x", "'''-x"],
    ["'plain", "'plain"],
    ["''", "''"],
    ['plain', 'plain'],
    ['', ''],
    [' =x', ' =x'],
  ])('%j is written %j and read back', (value, written) => {
    expect(neutraliseCell(value)).toBe(written);
    expect(restoreCell(written)).toBe(value);
  });

  it('reads a cell nobody neutralised as it is, and another writer’s apostrophe as the spreadsheet convention', () => {
    expect(restoreCell('=x')).toBe('=x');
    expect(restoreCell('-12')).toBe('-12');
    expect(restoreCell("'+44 7700 900123")).toBe('+44 7700 900123');
    expect(restoreCell("'O'Brien")).toBe("'O'Brien");
  });

  it('is a bijection: restore undoes neutralise for every text, and no written text starts with a formula', () => {
    fc.assert(
      fc.property(cellText, (text) => {
        const written = neutraliseCell(text);
        expect(restoreCell(written)).toBe(text);
        expect(startsWithFormula(written)).toBe(false);
        // Texts that are left alone are exactly those a reader leaves alone.
        if (written === text) expect(restoreCell(text)).toBe(text);
      }),
      { numRuns: 2000 },
    );
  });

  it('never writes two texts alike', () => {
    fc.assert(
      fc.property(cellText, cellText, (a, b) => {
        if (a !== b) expect(neutraliseCell(a)).not.toBe(neutraliseCell(b));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('csvField and csvRecord', () => {
  it('quotes a neutralised cell and what RFC 4180 needs quoted, nothing else', () => {
    expect(csvField('-0161 496 0000')).toBe(`"'-0161 496 0000"`);
    expect(csvField('=A1,"x"')).toBe(`"'=A1,""x"""`);
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('a;b', ';')).toBe('"a;b"');
    expect(csvField('a;b')).toBe('a;b');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField(' padded ')).toBe('" padded "');
    expect(csvField('plain')).toBe('plain');
    expect(quoteField('plain', ',', true)).toBe('"plain"');
  });

  it('written records parse, as a spreadsheet reads them, to cells that never start a formula and restore exactly', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(cellText, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 5 }),
        fc.constantFrom(',', ';', '\t', '|'),
        (rows, delimiter) => {
          // Each record starts with a plain cell, so that a record of one empty cell is not an empty line.
          const text = rows.map((row) => csvRecord(['row', ...row], delimiter)).join('\r\n');
          const parsed = Papa.parse<string[]>(text, { delimiter, newline: '\r\n', quoteChar: '"' });
          expect(parsed.errors).toEqual([]);
          expect(parsed.data.flat().filter(startsWithFormula)).toEqual([]);
          expect(parsed.data.map((row) => row.slice(1).map(restoreCell))).toEqual(rows);
        },
      ),
      { numRuns: 1000 },
    );
  });
});
