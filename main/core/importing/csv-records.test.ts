import fc from 'fast-check';
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { CsvRecordSplitter, RecordTooLargeError, parseBatch } from './csv-records.js';

function records(text: string, cuts: number[] = [], delimiter = ',') {
  const splitter = new CsvRecordSplitter(delimiter, 10_000);
  const out: { line: number; text: string; cells: string[] }[] = [];
  const take = (batch: ReturnType<CsvRecordSplitter['push']>) => {
    if (!batch) return;
    const { rows } = parseBatch(batch, delimiter);
    batch.records.forEach((record, i) => out.push({ line: batch.lines[i]!, text: record, cells: rows[i]! }));
  };
  let from = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    take(splitter.push(text.slice(from, cut)));
    from = cut;
  }
  take(splitter.push(text.slice(from)));
  take(splitter.end());
  return out;
}

describe('cutting CSV text into records', () => {
  it('keeps quoted delimiters, line breaks and "" escapes inside a record, and counts physical lines', () => {
    const text = 'a,b,c\r\n1,"x, ""y""\r\nz",3\r\n\r\n4,5,6\r\n';
    expect(records(text)).toEqual([
      { line: 1, text: 'a,b,c', cells: ['a', 'b', 'c'] },
      { line: 2, text: '1,"x, ""y""\r\nz",3', cells: ['1', 'x, "y"\r\nz', '3'] },
      { line: 4, text: '', cells: [''] },
      { line: 5, text: '4,5,6', cells: ['4', '5', '6'] },
    ]);
  });

  it('treats a quote inside an unquoted cell as text, as papaparse does', () => {
    expect(records('a,5" tall,c\nd,e,f').map((r) => r.cells)).toEqual([
      ['a', '5" tall', 'c'],
      ['d', 'e', 'f'],
    ]);
  });

  it('reads a cell with white space before its opening quote as quoted, however the text is cut', () => {
    // A writer joining cells with ", ": papaparse took the quote as text and split the cell at the comma inside.
    const text = 'a, "b, c",d\r\n "e\r\nf" ,\t"g ""h"", i"\r\nj,"k, ""l"", m",n\r\n';
    const whole = records(text);
    expect(whole.map((r) => [r.line, r.cells])).toEqual([
      [1, ['a', 'b, c', 'd']],
      [2, ['e\r\nf', 'g "h", i']],
      [4, ['j', 'k, "l", m', 'n']],
    ]);
    // The record kept is the file's text.
    expect(whole[0]!.text).toBe('a, "b, c",d');
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: text.length })), (cuts) => {
        expect(records(text, cuts)).toEqual(whole);
      }),
    );
    expect(records('a\t "b\tc"\td', [], '\t').map((r) => r.cells)).toEqual([['a', 'b\tc', 'd']]);
  });

  it('says which record had a space before a quote, and leaves quoted text and other quotes alone', () => {
    const splitter = new CsvRecordSplitter(',', 10_000);
    const batch = splitter.push('x,"p, ""q"" r"\r\ny, "z, w"\r\n')!;
    expect(parseBatch(batch, ',')).toMatchObject({
      rows: [
        ['x', 'p, "q" r'],
        ['y', 'z, w'],
      ],
      spacedQuote: 1,
    });
    const plain = splitter.push('u,5" tall, v\r\n') ?? splitter.end()!;
    expect(parseBatch(plain, ',')).toEqual({ rows: [['u', '5" tall', ' v']], badQuotes: new Set() });
  });

  it('handles \\n, \\r\\n and lone \\r line ends, even mixed in one file', () => {
    expect(records('a,b\nc,d\r\ne,f\rg,h').map((r) => [r.line, r.cells.join('|')])).toEqual([
      [1, 'a|b'],
      [2, 'c|d'],
      [3, 'e|f'],
      [4, 'g|h'],
    ]);
  });

  it('gives the same records as papaparse on the whole text, however the text is cut into chunks', () => {
    const cell = fc.oneof(
      fc.string({ unit: fc.constantFrom('a', 'b', ' ', ';'), maxLength: 4 }),
      fc
        .string({ unit: fc.constantFrom('a', ',', '"', '\n', '\r\n'), maxLength: 5 })
        .map((s) => `"${s.replaceAll('"', '""')}"`),
    );
    const row = fc.array(cell, { minLength: 1, maxLength: 4 }).map((cells) => cells.join(','));
    fc.assert(
      fc.property(
        fc.array(row, { minLength: 1, maxLength: 6 }),
        fc.constantFrom('\n', '\r\n'),
        fc.array(fc.nat()),
        (rows, end, cuts) => {
          const text = rows.join(end);
          const expected = Papa.parse<string[]>(text, { delimiter: ',', newline: end }).data;
          // papaparse reads a final line break as one more, empty, row; a file's last line ending is not a record.
          if (text.endsWith(end) && expected.at(-1)?.join('') === '') expected.pop();
          const got = records(
            text,
            cuts.map((c) => c % (text.length + 1)),
          );
          expect(got.map((r) => r.cells)).toEqual(expected);
          expect(records(text).map((r) => r.line)).toEqual(got.map((r) => r.line));
        },
      ),
    );
  });

  it('stops at a record beyond the cap, naming the line it starts on', () => {
    const splitter = new CsvRecordSplitter(',', 1000);
    splitter.push('a,b\n1,2\n3,"');
    expect(() => {
      for (let i = 0; i < 10; i += 1) splitter.push('x'.repeat(300));
    }).toThrow(RecordTooLargeError);
    try {
      splitter.push('x');
    } catch (error) {
      expect((error as RecordTooLargeError).line).toBe(3);
    }
  });

  it('marks records whose quoting papaparse cannot read, without shifting the others', () => {
    const splitter = new CsvRecordSplitter(',', 1000);
    const batch = splitter.push('a,b\n"x"y,z\nc,d\n')!;
    const { rows, badQuotes } = parseBatch(batch, ',');
    expect(rows).toHaveLength(3);
    expect([...badQuotes]).toEqual([1]);
    expect(rows[2]).toEqual(['c', 'd']);
  });
});
