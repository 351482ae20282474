import Papa from 'papaparse';

/**
 * Cuts streamed CSV text into whole records before papaparse sees them, for three reasons:
 * - papaparse's own streaming keeps an unfinished record and re-parses it with every chunk, so one 50 MB field
 *   costs quadratic time and unbounded memory; here a record longer than the cap stops the import at once;
 * - each record's physical line number is known exactly (quoted fields may hold line breaks), for provenance;
 * - each record's original text is kept for the error export ("the original rows plus an error column").
 * Only record boundaries are decided here (RFC 4180 quoting: a quote opens a quoted field only at the field's
 * start, `""` inside is a quote); papaparse still parses every field.
 */

export const MAX_RECORD_CHARS = 1_000_000;

export class RecordTooLargeError extends Error {
  constructor(readonly line: number) {
    super(`record at line ${line} is too large`);
    this.name = 'RecordTooLargeError';
  }
}

export interface RecordBatch {
  /** Original record texts, without their line terminators. */
  records: string[];
  /** Physical line (1-based) where each record starts. */
  lines: number[];
  /** The records as one papaparse input, and the line terminator it uses. */
  text: string;
  newline: string;
  /** The file's last record, with no line break after it (the last record of this batch). */
  unterminated?: boolean;
}

function countLineBreaks(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 10) count += 1;
    else if (c === 13) {
      count += 1;
      if (text.charCodeAt(i + 1) === 10) i += 1;
    }
  }
  return count;
}

export class CsvRecordSplitter {
  private buf = '';
  private pos = 0;
  private recStart = 0;
  private inQuotes = false;
  private quoted = false;
  private line = 1;
  // Next known positions of '\n', '\r' and '"' at or after pos; -1 = none in buf; undefined = not searched yet.
  private nextLf: number | undefined;
  private nextCr: number | undefined;
  private nextQuote: number | undefined;

  constructor(
    private readonly delimiter: string,
    private readonly maxRecordChars = MAX_RECORD_CHARS,
  ) {}

  push(text: string): RecordBatch | undefined {
    this.buf = this.buf.slice(this.recStart) + text;
    this.pos -= this.recStart;
    this.recStart = 0;
    this.nextLf = this.nextCr = this.nextQuote = undefined;
    return this.scan(false);
  }

  end(): RecordBatch | undefined {
    return this.scan(true);
  }

  private find(which: 'nextLf' | 'nextCr' | 'nextQuote', char: string): number {
    const cached = this[which];
    if (cached === -1 || (cached !== undefined && cached >= this.pos)) return cached;
    const found = this.buf.indexOf(char, this.pos);
    this[which] = found;
    return found;
  }

  private scan(final: boolean): RecordBatch | undefined {
    const buf = this.buf;
    const len = buf.length;
    const records: string[] = [];
    const lines: number[] = [];
    const terminators: string[] = [];
    const batchStart = this.recStart;
    let batchEnd = batchStart;
    const emit = (end: number, terminatorLength: number) => {
      const record = buf.slice(this.recStart, end);
      if (record.length > this.maxRecordChars) throw new RecordTooLargeError(this.line);
      records.push(record);
      lines.push(this.line);
      terminators.push(buf.slice(end, end + terminatorLength));
      this.line += 1 + (this.quoted ? countLineBreaks(record) : 0);
      this.quoted = false;
      batchEnd = end;
      this.recStart = this.pos = end + terminatorLength;
    };

    for (;;) {
      if (this.inQuotes) {
        const q = this.find('nextQuote', '"');
        if (q === -1) {
          this.pos = len;
          break;
        }
        if (q + 1 === len && !final) {
          this.pos = q; // a quote at the very end may be the first half of ""
          break;
        }
        if (buf.charCodeAt(q + 1) === 34) {
          this.pos = q + 2;
          continue;
        }
        this.inQuotes = false;
        this.pos = q + 1;
        continue;
      }
      const lf = this.find('nextLf', '\n');
      const cr = this.find('nextCr', '\r');
      const nl = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
      const q = this.find('nextQuote', '"');
      if (q !== -1 && (nl === -1 || q < nl)) {
        // A quote opens a cell at the record's start or after a delimiter, white space between them allowed
        // (withoutSpaceBeforeQuotes reads it so).
        let k = q;
        while (k > this.recStart && (buf[k - 1] === ' ' || buf[k - 1] === '\t') && buf[k - 1] !== this.delimiter)
          k -= 1;
        if (k === this.recStart || buf[k - 1] === this.delimiter) {
          this.inQuotes = true;
          this.quoted = true;
        }
        this.pos = q + 1;
        continue;
      }
      if (nl === -1) {
        this.pos = len;
        break;
      }
      if (nl === cr && nl + 1 === len && !final) {
        this.pos = nl; // may be the first half of \r\n
        break;
      }
      emit(nl, nl === cr && buf.charCodeAt(nl + 1) === 10 ? 2 : 1);
    }
    let unterminated = false;
    if (final && this.recStart < len) {
      this.pos = len;
      emit(len, 0);
      unterminated = true;
    }
    if (!final && len - this.recStart > this.maxRecordChars) throw new RecordTooLargeError(this.line);
    if (records.length === 0) return undefined;

    const newline = terminators.find((t) => t !== '') ?? '\n';
    const uniform = terminators.every((t, i) => t === newline || (t === '' && i === terminators.length - 1));
    return {
      records,
      lines,
      newline: uniform ? newline : '\n',
      // The common case is one slice of the buffer; mixed line endings are joined with one terminator instead.
      text: uniform ? buf.slice(batchStart, batchEnd) : records.join('\n'),
      ...(unterminated ? { unterminated } : {}),
    };
  }
}

export interface ParsedRecords {
  rows: string[][];
  /** Record indexes whose quoting papaparse found malformed. */
  badQuotes: ReadonlySet<number>;
  /** The first record (index) with white space before a cell's opening quote, read as quoted. */
  spacedQuote?: number;
}

/**
 * White space between a delimiter (or a record's start) and an opening quote: `a, "b, c"`, as a hand-edited file or
 * a writer joining cells with ", " has it. papaparse, like a spreadsheet, takes such a quote as text, so the comma
 * inside split the cell and every later cell of the row moved one column on (a dosage into the quantity, the last
 * cell lost). Cells are trimmed anyway, so the white space is dropped and the quote opens the cell. Quotes are
 * followed exactly as papaparse follows them (only one opening a cell starts quoted text, `""` inside is a quote), so
 * nothing inside quoted text is touched. Returns the text unchanged when there is no such place.
 */
export function withoutSpaceBeforeQuotes(text: string, delimiter: string): { text: string; firstAt?: number } {
  // A delimiter in a character class needs only ] \ ^ - escaped; a tab stands for itself.
  const quick = new RegExp(`(?:^|[${delimiter.replace(/[\]\\^-]/g, '\\$&')}\\r\\n])[ \\t]+"`);
  if (!quick.test(text)) return { text };
  let out = '';
  let from = 0;
  let firstAt: number | undefined;
  let cellStart = true;
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (quoted) {
      if (c === 34) {
        if (text.charCodeAt(i + 1) === 34) i += 1;
        else quoted = false;
      }
      continue;
    }
    if (cellStart) {
      cellStart = false;
      let j = i;
      while (j < text.length && (text[j] === ' ' || text[j] === '\t') && text[j] !== delimiter) j += 1;
      if (j > i && text.charCodeAt(j) === 34) {
        out += text.slice(from, i);
        from = j;
        firstAt ??= i;
        i = j;
      }
      if (text.charCodeAt(i) === 34) {
        quoted = true;
        continue;
      }
    }
    const here = text[i];
    if (here === delimiter || here === '\n' || here === '\r') cellStart = true;
  }
  if (firstAt === undefined) return { text };
  return { text: out + text.slice(from), firstAt };
}

/** The index of the record holding character `at` of the batch's text (records joined by its newline). */
const recordAt = (batch: RecordBatch, at: number): number => {
  let offset = 0;
  for (let i = 0; i < batch.records.length; i += 1) {
    offset += batch.records[i]!.length + batch.newline.length;
    if (offset > at) return i;
  }
  return batch.records.length - 1;
};

/**
 * The cell at `index` of a record without quotes (undefined past its end), found without splitting the rest: the
 * first pass over a file only needs each row's order key.
 */
export function unquotedCell(record: string, delimiter: string, index: number): string | undefined {
  let start = 0;
  for (let i = 0; i < index; i += 1) {
    const next = record.indexOf(delimiter, start);
    if (next === -1) return undefined;
    start = next + 1;
  }
  const end = record.indexOf(delimiter, start);
  return end === -1 ? record.slice(start) : record.slice(start, end);
}

/** Whether every cell of a record without quotes is blank (white space only). */
export function isBlankUnquoted(record: string, delimiter: string): boolean {
  const first = record.charCodeAt(0);
  // Nearly every row starts with a visible character that is not the delimiter.
  if (first > 32 && first < 127 && record[0] !== delimiter) return false;
  return record.split(delimiter).join('').trim() === '';
}

const parseConfig = (delimiter: string, newline: string): Papa.ParseConfig => ({
  delimiter,
  newline: newline as Papa.ParseConfig['newline'],
  quoteChar: '"',
  escapeChar: '"',
  header: false,
  dynamicTyping: false,
  skipEmptyLines: false,
});

const NO_BAD_QUOTES: Set<number> = new Set();

/**
 * Parses a batch: without a quote character anywhere in it, each record is split at the delimiter, which is all
 * papaparse itself does then (its "fast mode"), minus its set-up and result objects; otherwise with papaparse, record
 * by record when quoting is broken somewhere in the batch.
 */
export function parseBatch(batch: RecordBatch, delimiter: string): ParsedRecords {
  if (!batch.text.includes('"')) {
    const rows = new Array<string[]>(batch.records.length);
    for (let i = 0; i < rows.length; i += 1) rows[i] = batch.records[i]!.split(delimiter);
    return { rows, badQuotes: NO_BAD_QUOTES };
  }
  const spaced = withoutSpaceBeforeQuotes(batch.text, delimiter);
  const spacedQuote = spaced.firstAt === undefined ? undefined : recordAt(batch, spaced.firstAt);
  const whole = Papa.parse<string[]>(spaced.text, parseConfig(delimiter, batch.newline));
  if (whole.errors.length === 0 && whole.data.length === batch.records.length) {
    return { rows: whole.data, badQuotes: new Set(), ...(spacedQuote !== undefined ? { spacedQuote } : {}) };
  }
  const rows: string[][] = [];
  const badQuotes = new Set<number>();
  batch.records.forEach((record, i) => {
    if (record === '') {
      rows.push(['']);
      return;
    }
    const one = Papa.parse<string[]>(withoutSpaceBeforeQuotes(record, delimiter).text, parseConfig(delimiter, '\n'));
    if (one.errors.length > 0 || one.data.length !== 1) badQuotes.add(i);
    rows.push(one.data.length === 1 ? one.data[0]! : [record]);
  });
  return { rows, badQuotes, ...(spacedQuote !== undefined ? { spacedQuote } : {}) };
}
