import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Hl7Splitter, Hl7StreamAbort } from './hl7-stream.js';

function split(text: string, cuts: number[] = []): { messages: string[][]; problems: string[] } {
  const splitter = new Hl7Splitter('f.hl7', 1000);
  const out = [];
  let from = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    out.push(...splitter.push(text.slice(from, cut)));
    from = cut;
  }
  out.push(...splitter.push(text.slice(from)), ...splitter.end());
  expect(out.map((m) => m.index)).toEqual(out.map((_, i) => i + 1));
  return { messages: out.map((m) => m.segments), problems: splitter.problems.map((p) => p.code) };
}

const MSG = (n: number) => [
  `MSH|^~\\&|S|F|||20250101||RDE^O11|M${n}|P|2.5`,
  `PID|1||${n}`,
  `ORC|NW|O${n}`,
  `RXE||1^x^DMD`,
];

describe('splitting HL7 streams into messages', () => {
  it.each([
    ['\\r', '\r'],
    ['\\n', '\n'],
    ['\\r\\n', '\r\n'],
  ])('splits segments ending in %s', (_name, end) => {
    const text = [...MSG(1), ...MSG(2)].join(end) + end;
    expect(split(text)).toEqual({ messages: [MSG(1), MSG(2)], problems: [] });
  });

  it('drops MLLP framing', () => {
    const text = `\x0b${MSG(1).join('\r')}\r\x1c\r\x0b${MSG(2).join('\r')}\r\x1c\r`;
    expect(split(text)).toEqual({ messages: [MSG(1), MSG(2)], problems: [] });
  });

  it('splits MLLP frames whose segments or end byte have no carriage return, however the text is cut', () => {
    // python-hl7's and hl7apy's MLLP tests frame as 0x0B message 0x1C with no CR after it; some senders also leave
    // the CR off the last segment, so one line held the end of a message and the start of the next.
    const text = [1, 2, 3].map((n) => `\x0b${MSG(n).join('\r')}\x1c`).join('');
    const whole = split(text);
    expect(whole).toEqual({ messages: [MSG(1), MSG(2), MSG(3)], problems: [] });
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: text.length })), (cuts) => {
        expect(split(text, cuts)).toEqual(whole);
      }),
    );
  });

  it.each([
    ['\\r', '\\r'],
    ['\\n', '\\n'],
    ['\\r\\n', '\\r\\n'],
  ])(
    'reads segments separated by the text %s (a message copied from source code or a log) and says so once',
    (_n, end) => {
      const splitter = new Hl7Splitter('f.hl7', 1000);
      const text = `${MSG(1).join(end)}${end}\n${MSG(2).join(end)}\n`;
      const out = [...splitter.push(text), ...splitter.end()];
      expect(out.map((m) => m.segments)).toEqual([MSG(1), MSG(2)]);
      expect(splitter.problems).toMatchObject([{ code: 'hl7.textLineBreaks', severity: 'warning' }]);
      expect(splitter.problems[0]!.text).toContain('line 1');
      expect(splitter.problems[0]!.text).toContain('2 lines');
    },
  );

  it.each([['\\r'], ['\\n'], ['\\r\\n'], [' \\r '], ['\\r\\r']])(
    'reports a line that is only the text %s by its number, inside a message and outside one',
    (text) => {
      const splitter = new Hl7Splitter('f.hl7', 1000);
      const [msh, ...rest] = MSG(1);
      const out = [...splitter.push([msh, text, ...rest, text, ...MSG(2)].join('\r') + '\r'), ...splitter.end()];
      expect(out.map((m) => m.segments)).toEqual([MSG(1), MSG(2)]);
      expect(out[0]!.stray).toEqual([{ line: 2, text: text.trim() }]);
      expect(splitter.problems.map((p) => p.code)).toEqual(['hl7.strayContent']);
      expect(splitter.problems[0]!.text).toBe(
        `Line 6 is outside any message (before its MSH, or text between messages) and was skipped; line 6 reads '${text.trim()}'.`,
      );
    },
  );

  it('keeps a \\r, \\n or \\N\\ inside a value that no segment follows', () => {
    const segments = ['MSH|^~\\&|S|F|||20250101||RDE^O11|M1|P|2.5', 'NTE|1||C:\\new\\rota\\N\\PID x\\rABC'];
    expect(split(segments.join('\r'))).toEqual({ messages: [segments], problems: [] });
  });

  it('names the control character of a stray line that would not show (a DOS end-of-file byte)', () => {
    const splitter = new Hl7Splitter('f.hl7', 1000);
    splitter.push(`${MSG(1).join('\r')}\r\x1a`);
    splitter.end();
    expect(splitter.problems).toMatchObject([{ code: 'hl7.strayContent' }]);
    expect(splitter.problems[0]!.text).toContain("line 5 reads 'U+001A'");
  });

  it('gives the same messages however the text is cut into chunks', () => {
    const text = [
      'FHS|^~\\&',
      'BHS|^~\\&',
      ...MSG(1),
      ...MSG(2),
      'BTS|2',
      'BHS|^~\\&',
      ...MSG(3),
      'BTS|1',
      'FTS|2',
    ].join('\r\n');
    const whole = split(text);
    expect(whole).toEqual({ messages: [MSG(1), MSG(2), MSG(3)], problems: [] });
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: text.length })), (cuts) => {
        expect(split(text, cuts)).toEqual(whole);
      }),
    );
  });

  it('says when a BTS or FTS count is no number (nothing is checked then), and reads 0003 or 3.0 as counts', () => {
    const splitter = new Hl7Splitter('f.hl7', 1000);
    splitter.push(['FHS|^~\\&', 'BHS|^~\\&', ...MSG(1), 'BTS|one message', 'FTS|-1'].join('\r') + '\r');
    splitter.end();
    expect(splitter.problems.map((p) => [p.code, p.severity, p.text])).toEqual([
      [
        'hl7.countUnreadable',
        'warning',
        "The BTS trailer on line 7 gives BTS-1 as 'one message', not a number of messages, so whether the batch is complete was not checked.",
      ],
      [
        'hl7.countUnreadable',
        'warning',
        "The FTS trailer on line 8 gives FTS-1 as '-1', not a number of batches, so whether the file is complete was not checked.",
      ],
    ]);
    expect(split(['BHS|^~\\&', ...MSG(1), 'BTS|0001'].join('\r')).problems).toEqual([]);
    expect(split(['BHS|^~\\&', ...MSG(1), 'BTS|2.0'].join('\r')).problems).toEqual(['hl7.batchCount']);
  });

  it('checks BTS and FTS counts and notices missing trailers', () => {
    expect(split(['BHS|^~\\&', ...MSG(1), 'BTS|2'].join('\r')).problems).toEqual(['hl7.batchCount']);
    expect(split(['FHS|^~\\&', 'BHS|^~\\&', ...MSG(1), 'BTS|1', 'FTS|3'].join('\r')).problems).toEqual([
      'hl7.fileCount',
    ]);
    expect(split(['FHS|^~\\&', 'BHS|^~\\&', ...MSG(1)].join('\r')).problems).toEqual([
      'hl7.batchUnclosed',
      'hl7.fileUnclosed',
    ]);
    expect(split(['BHS|^~\\&', ...MSG(1), 'BHS|^~\\&', ...MSG(2), 'BTS|1'].join('\r')).problems).toEqual([
      'hl7.batchUnclosed',
    ]);
    // BHS is optional: a BTS may close the messages before it; a BTS with nothing before it ends no batch.
    expect(split([...MSG(1), 'BTS|1'].join('\r')).problems).toEqual([]);
    expect(split([...MSG(1), 'BTS|2'].join('\r')).problems).toEqual(['hl7.batchCount']);
    expect(split(['BTS|0', ...MSG(1)].join('\r')).problems).toEqual(['hl7.batchTrailer']);
    // An empty count is allowed by the standard: nothing to check.
    expect(split(['BHS|^~\\&', ...MSG(1), 'BTS|'].join('\r')).problems).toEqual([]);
  });

  it('says a count of one in the singular', () => {
    const texts = (text: string) => {
      const splitter = new Hl7Splitter('f.hl7', 1000);
      splitter.push(text);
      splitter.end();
      return splitter.problems.map((p) => p.text);
    };
    expect(texts(['BHS|^~\\&', 'BTS|1'].join('\r'))).toContain(
      'The BTS trailer says the batch holds 1 message, but it holds 0: the file may be incomplete or edited. ' +
        'Nothing was staged: ask the sender for the file again, or, if the count itself is wrong, change BTS-1 to 0 ' +
        '(or delete the BTS line) and import the file again.',
    );
    expect(texts(['FHS|^~\\&', 'FTS|1'].join('\r'))).toContain(
      'The FTS trailer says the file holds 1 batch, but it holds 0 (messages without a BHS count as one batch). ' +
        'Nothing was staged: ask the sender for the file again, or, if the count itself is wrong, change FTS-1 to 0 ' +
        '(or delete the FTS line) and import the file again.',
    );
    expect(texts(['BHS|^~\\&', ...MSG(1), 'BTS|2'].join('\r'))).toContain(
      'The BTS trailer says the batch holds 2 messages, but it holds 1: the file may be incomplete or edited. ' +
        'Nothing was staged: ask the sender for the file again, or, if the count itself is wrong, change BTS-1 to 1 ' +
        '(or delete the BTS line) and import the file again.',
    );
  });

  it('reports segments outside any message once, and keeps the messages', () => {
    const result = split(['PID|1||x', 'ORC|NW|y', ...MSG(1)].join('\r'));
    expect(result).toEqual({ messages: [MSG(1)], problems: ['hl7.strayContent'] });
  });

  it('counts messages directly under an FHS, with no BHS, as one batch', () => {
    const cases: [string[], string[]][] = [
      [['FHS|^~\\&', ...MSG(1), ...MSG(2), 'FTS|1'], []],
      [['FHS|^~\\&', ...MSG(1), ...MSG(2), 'BTS|2', 'FTS|1'], []],
      [['FHS|^~\\&', ...MSG(1), 'BHS|^~\\&', ...MSG(2), 'BTS|1', 'FTS|2'], []],
      [['FHS|^~\\&', 'BHS|^~\\&', ...MSG(1), 'BTS|1', ...MSG(2), 'FTS|2'], []],
      [['FHS|^~\\&', ...MSG(1), ...MSG(2), 'FTS|2'], ['hl7.fileCount']],
      [['FHS|^~\\&', ...MSG(1), ...MSG(2), 'BTS|3', 'FTS|1'], ['hl7.batchCount']],
      [['FHS|^~\\&', ...MSG(1)], ['hl7.fileUnclosed']],
    ];
    for (const [lines, problems] of cases) {
      const result = split(lines.join('\r\n'));
      expect(result.problems, lines.join(' ')).toEqual(problems);
      expect(result.messages).toHaveLength(lines.filter((l) => l.startsWith('MSH')).length);
    }
  });

  it('names stray lines by their line numbers: outside messages for the file, between segments for the message', () => {
    const splitter = new Hl7Splitter('f.hl7');
    const text = [
      '# Exported by EPR', // 1
      'Orders for 1 June', // 2
      '', // 3
      ...MSG(1).slice(0, 2), // 4, 5
      'with food', // 6: between PID and ORC of message 1
      ...MSG(1).slice(2), // 7, 8
      '-- end of message --', // 9: after message 1's last segment
      ...MSG(2), // 10-13
      '```', // 14
    ].join('\n');
    const messages = [...splitter.push(text), ...splitter.end()];
    expect(messages.map((m) => m.segments)).toEqual([MSG(1), MSG(2)]);
    expect(messages.map((m) => m.stray)).toEqual([[{ line: 6, text: 'with food' }], undefined]);
    expect(splitter.strayOutside.map((s) => s.line)).toEqual([1, 2, 9, 14]);
    expect(splitter.problems).toMatchObject([{ code: 'hl7.strayContent', severity: 'warning' }]);
    expect(splitter.problems[0]!.text).toContain('Lines 1, 2, 9 and 14');
    expect(splitter.problems[0]!.text).toContain("'# Exported by EPR'");
  });

  it('reads indented segments (pasted from a document) and says so once', () => {
    const indented = [...MSG(1), ...MSG(2)].map((line, i) => `${i % 2 ? '\t' : '    '}${line}`).join('\r\n');
    const splitter = new Hl7Splitter('f.hl7');
    const messages = [...splitter.push(indented), ...splitter.end()];
    expect(messages.map((m) => m.segments)).toEqual([MSG(1), MSG(2)]);
    expect(splitter.problems.map((p) => [p.code, p.severity])).toEqual([['hl7.indented', 'warning']]);
    expect(splitter.problems[0]!.text).toContain('first on line 1');
  });

  it('counts lines across chunk cuts, including a CR LF cut in two', () => {
    const text = ['note', ...MSG(1), 'stray', ...MSG(2)].join('\r\n') + '\r\n';
    const lines = (cuts: number[]) => {
      const splitter = new Hl7Splitter('f.hl7');
      let from = 0;
      const out = [];
      for (const cut of [...cuts].sort((a, b) => a - b)) {
        out.push(...splitter.push(text.slice(from, cut)));
        from = cut;
      }
      out.push(...splitter.push(text.slice(from)), ...splitter.end());
      return { out: out.map((m) => m.segments), stray: splitter.strayOutside.map((s) => s.line) };
    };
    expect(lines([])).toEqual({ out: [MSG(1), MSG(2)], stray: [1, 6] });
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: text.length })), (cuts) => {
        expect(lines(cuts)).toEqual({ out: [MSG(1), MSG(2)], stray: [1, 6] });
      }),
    );
  });

  it('stops at a segment beyond the size cap instead of buffering it', () => {
    const splitter = new Hl7Splitter('f.hl7', 1000);
    splitter.push(MSG(1).join('\r') + '\rOBX|1|');
    let error: unknown;
    try {
      for (let i = 0; i < 10; i += 1) splitter.push('x'.repeat(300));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(Hl7StreamAbort);
    expect((error as Hl7StreamAbort).problem).toMatchObject({
      code: 'hl7.segmentTooLarge',
      severity: 'error',
      file: 'f.hl7',
    });
  });
});
