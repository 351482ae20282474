/**
 * CSV injection (OWASP "CSV Injection"): one rule for every CSV cell the app writes, and its exact inverse for every
 * CSV cell the app reads.
 *
 * A spreadsheet runs a cell as a formula when its text starts with `=`, `+`, `-` or `@`; some skip a leading TAB or
 * CR first, and some fold the full-width forms `＝ ＋ － ＠` into ASCII. So a cell is *dangerous* when it starts with
 * one of these FORMULA_STARTS: `= + - @`, TAB, CR, LF, `＝ ＋ － ＠` (LF is included so that a cell's leading line
 * break is kept like its leading tab: the importer trims cells, and a protected break is not at the start).
 *
 * The rule, precisely. A text is *guarded* when it is any number (zero or more) of apostrophes `'` followed by a
 * formula start: `/^'*[=+\-@\t\r\n＝＋－＠]/`. A *cell start* is the start of the text, or the place right after a
 * separator (`, ; TAB |` or a line break, and a `"` right after it), where a spreadsheet splitting on it starts a cell.
 * - `neutraliseCell(t)` puts `'` at each cell start of t that a guarded text follows, else leaves t unchanged.
 *   Writers then quote the field (`csvField`).
 * - `restoreCell(t)` drops one `'` at each cell start that an apostrophe and a guarded text follow (that is,
 *   `'+[formula start]`), else returns t unchanged.
 *
 * Why apostrophes count: a clinic's genuine value `'=x` must come back as `'=x`, so it is written `''=x`; and `''=x`
 * is written `'''=x`. With that, neutraliseCell is one-to-one (two texts are never written alike) and
 * `restoreCell(neutraliseCell(t)) === t` for every t: a neutralised text is `'` + a guarded text, and an unchanged
 * text is never of that form (it would be guarded itself); the cell starts are the same before and after, since only
 * apostrophes are put in. A written cell has no formula start at any cell start: there it has `'`, or no guarded
 * text.
 *
 * Reading: `restoreCell` applies to every cell of every CSV the app imports, whoever wrote the file. A leading `'`
 * before a formula character is the spreadsheet convention for "this is text" (and other exporters' OWASP
 * escaping), so `'+44 161 496 0000` from another system reads as `+44 161 496 0000`; a cell nobody escaped, such
 * as `-12` or `=x`, reads as it is. Only a value that genuinely starts with an apostrophe before a formula
 * character (rare in a prescription) reads one apostrophe shorter when the file did not come from this app.
 *
 * No Node or DOM imports: the core uses it and the renderer may.
 */

/** The characters a dangerous cell starts with (the one list every check here is built from). */
export const FORMULA_STARTS: readonly string[] = [
  '=',
  '+',
  '-',
  '@',
  '\t',
  '\r',
  '\n',
  '\uff1d',
  '\uff0b',
  '\uff0d',
  '\uff20',
];

const FORMULA_CLASS = `[${FORMULA_STARTS.map((char) => (char === '-' ? '\\-' : char)).join('')}]`;
/**
 * Where a spreadsheet may start a cell inside the text: at its start, and after any separator a CSV may be split on
 * (`, ; TAB |`, and a line break, where a reader that split a quoted field elsewhere starts a record), with the
 * quote that opens a field after it. A spreadsheet opening a `.csv` splits it on its locale's
 * list separator, not on the one it was written with: `x;=HYPERLINK(…)` in a comma file is a cell `=HYPERLINK(…)`
 * in a spreadsheet that splits on `;`, however the field is quoted.
 */
const CELL_START = '(?<=^|[,;\\t|\\r\\n]|[,;\\t|\\r\\n]")';
const FORMULA_AT = new RegExp(`${CELL_START}${FORMULA_CLASS}`);
const GUARDED_AT = new RegExp(`${CELL_START}(?='*${FORMULA_CLASS})`, 'g');
const NEUTRALISED_AT = new RegExp(`${CELL_START}'(?='*${FORMULA_CLASS})`, 'g');

/**
 * Whether a spreadsheet could run some of this text as a formula: it starts with one of FORMULA_STARTS, or one
 * follows a separator (see CELL_START).
 */
export function hasFormulaStart(text: string): boolean {
  return FORMULA_AT.test(text);
}

/**
 * The text as it is written in a CSV cell: an apostrophe in front of each guarded text (see above), at its start and
 * after each separator in it.
 */
export function neutraliseCell(text: string): string {
  return text.replace(GUARDED_AT, "'");
}

/** The inverse of neutraliseCell: one apostrophe less in front of each guarded text, where it may put one. */
export function restoreCell(text: string): string {
  // Most cells hold no apostrophe: the common case costs one search, not a regular expression.
  if (!text.includes("'")) return text;
  return text.replace(NEUTRALISED_AT, '');
}

const QUOTE = /"/g;

/**
 * A field quoted the RFC 4180 way when it must be: it holds the delimiter, a quote, a line break or a byte order
 * mark, or starts or ends with a space (as papaparse decides); or always with `force`.
 */
export function quoteField(text: string, delimiter: string, force = false): string {
  const needs =
    force ||
    text.includes(delimiter) ||
    text.includes('"') ||
    text.includes('\n') ||
    text.includes('\r') ||
    text.includes('\ufeff') ||
    text.startsWith(' ') ||
    text.endsWith(' ');
  return needs ? `"${text.replace(QUOTE, '""')}"` : text;
}

/** One cell as the app writes it: neutralised, and quoted when it was (or when RFC 4180 needs it). */
export function csvField(text: string, delimiter = ','): string {
  const written = neutraliseCell(text);
  return quoteField(written, delimiter, written !== text);
}

/** One record (without its line terminator): every cell through csvField. */
export function csvRecord(cells: readonly string[], delimiter = ','): string {
  return cells.map((cell) => csvField(cell, delimiter)).join(delimiter);
}
