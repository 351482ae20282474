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
  hasFormulaStart,
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
        expect(hasFormulaStart(written)).toBe(false);
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
          expect(parsed.data.flat().filter(hasFormulaStart)).toEqual([]);
          expect(parsed.data.map((row) => row.slice(1).map(restoreCell))).toEqual(rows);
        },
      ),
      { numRuns: 1000 },
    );
  });

  // Security review: a spreadsheet splits a `.csv` on its locale's list separator, not on the one it was written with.
  it('read with any other separator, or as lines, no cell a spreadsheet makes of a written record starts a formula', () => {
    // What a spreadsheet runs: a cell whose first character, after any leading TAB or line break it skips, is one
    // of = + - @ (or their full-width forms).
    const firstIsFormula = (cell: string) => /^[\t\r\n]*[=+\-@\uff1d\uff0b\uff0d\uff20]/.test(cell);
    fc.assert(
      fc.property(
        fc.array(cellText, { minLength: 1, maxLength: 6 }),
        fc.constantFrom(',', ';', '\t', '|'),
        fc.constantFrom(',', ';', '\t', '|'),
        (row, written, read) => {
          const text = csvRecord(['row', ...row], written);
          for (const cell of Papa.parse<string[]>(text, { delimiter: read, quoteChar: '"' }).data.flat()) {
            expect(firstIsFormula(cell), JSON.stringify({ text, read, cell })).toBe(false);
          }
        },
      ),
      { numRuns: 2000 },
    );
    expect(csvRecord(['Smith', 'One tablet;=HYPERLINK(A1);four times a day'])).toBe(
      `Smith,"One tablet;'=HYPERLINK(A1);four times a day"`,
    );
    expect(restoreCell(neutraliseCell('x,"=y\n-z|@w'))).toBe('x,"=y\n-z|@w');
  });
});
