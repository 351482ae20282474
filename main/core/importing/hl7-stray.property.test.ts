import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { looksLikeHl7 } from './import-file.js';
import { Hl7Splitter, inCapitals, isSegmentLine } from './hl7-stream.js';

/**
 * HL7 files as people paste and edit them: comment and text lines before, between and inside messages, blank lines,
 * indented segments, any line ending, any chunking. Whatever is added, the messages come out exactly as written,
 * every stray line is reported once with its line number (on its message when it sits between two of that
 * message's segments or is a wrapped tail right after one, else for the file), indentation is said once, and the file is still told apart as HL7.
 */

const message = (n: number, extra: number) => [
  `MSH|^~\\&|EPR|CLINIC-A|||20250101||RDE^O11|M${n}|P|2.5`,
  `PID|1||${n}||Example^Alex`,
  `ORC|NW|O${n}`,
  ...Array.from({ length: extra }, (_, i) => `RXE||1^x^DMD|||||^dose ${i}`),
];

const STRAY_TEXTS = [
  '# Exported by EPR',
  '// message follows',
  'Message 2:',
  '```',
  '```hl7',
  '---',
  'with food',
  // A segment name in lower case (`pid|…`) is read as that segment (hl7.segmentNameCase); these are no name at all.
  '1pid|a digit first is not a segment',
  'p-d|nor is a dash',
  'PID is the patient segment',
  'MSHX',
  'Rx|1|2',
  '<hl7>',
  'Example 3. A prescription',
  // A line break written as text with no segment beside it separates nothing: a stray line like any other.
  '\\r',
  '\\n',
  '\\r\\n',
  'see below\\r',
];
const strayText = fc.oneof(
  fc.constantFrom(...STRAY_TEXTS),
  fc
    .string({ minLength: 1, maxLength: 30 })
    // Line breaks and the MLLP frame bytes would make two lines, or a frame, of one.
    // eslint-disable-next-line no-control-regex
    .map((s) => s.replace(/[\r\n\x0b\x1c]/g, ' ').trim())
    // The text `\r` or `\n` before a segment name is a line break written as text (hl7-stream.ts,
    // hl7.textLineBreaks) that starts a segment; lines of such text alone are among STRAY_TEXTS.
    .filter((s) => s !== '' && !isSegmentLine(s, '|') && !inCapitals(s, '|') && !/\\[rn]/.test(s)),
);
const indent = fc.constantFrom('', '', '', ' ', '    ', '\t', '  \t');

interface Line {
  text: string;
  /** Message (0-based) and whether it is that message's MSH, for segments; undefined for stray and blank lines. */
  message?: number;
  msh?: boolean;
  stray?: boolean;
}

const fileArb = fc
  .record({
    messages: fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 1, maxLength: 4 }),
    envelope: fc.constantFrom('none', 'fhs', 'fhs-bhs'),
    ending: fc.constantFrom('\r', '\n', '\r\n'),
  })
  .chain(({ messages, envelope, ending }) => {
    const segments: Line[] = [];
    if (envelope !== 'none') segments.push({ text: 'FHS|^~\\&|EPR' });
    if (envelope === 'fhs-bhs') segments.push({ text: 'BHS|^~\\&|EPR' });
    messages.forEach((extra, m) =>
      message(m + 1, extra).forEach((text, i) => segments.push({ text, message: m, msh: i === 0 })),
    );
    if (envelope === 'fhs-bhs') segments.push({ text: `BTS|${messages.length}` });
    if (envelope !== 'none') segments.push({ text: 'FTS|1' });
    return fc.record({
      segments: fc.constant(segments),
      messages: fc.constant(messages),
      ending: fc.constant(ending),
      // What goes into each gap (before the first line, between lines, after the last): stray or blank lines.
      gaps: fc.array(
        fc.array(
          fc.oneof(
            strayText.map((text) => ({ text, stray: true })),
            fc.constantFrom({ text: '   ' }),
          ),
          {
            maxLength: 2,
          },
        ),
        { minLength: segments.length + 1, maxLength: segments.length + 1 },
      ),
      indents: fc.array(indent, { minLength: segments.length, maxLength: segments.length }),
      cuts: fc.array(fc.nat(), { maxLength: 6 }),
    });
  });

describe('HL7 files with stray lines, blank lines and indentation', () => {
  it('keeps every message exact and reports every stray line once, by line number', () => {
    fc.assert(
      fc.property(fileArb, ({ segments, messages, ending, gaps, indents, cuts }) => {
        const lines: Line[] = [];
        segments.forEach((segment, i) => {
          lines.push(...gaps[i]!);
          lines.push({ ...segment, text: `${indents[i]}${segment.text}` });
        });
        lines.push(...gaps[segments.length]!);
        const text = lines.map((line) => line.text).join(ending) + ending;

        // Expected: a stray line is inside message m when the segments around it are both m's and the next is not
        // its MSH; every other stray line is outside any message.
        const inside = new Map<number, number[]>();
        const outside: number[] = [];
        lines.forEach((line, i) => {
          if (!line.stray) return;
          const before = lines.slice(0, i).findLast((l) => !l.stray && l.text.trim() !== '');
          const after = lines.slice(i + 1).find((l) => !l.stray && l.text.trim() !== '');
          const m = before?.message;
          // A line holding the separator right after a segment (or after such lines), no blank line between, is
          // that segment's wrapped tail: its message's.
          let back = i - 1;
          while (back >= 0 && lines[back]!.stray && lines[back]!.text.includes('|')) back -= 1;
          const tailOf = line.text.includes('|') && back >= 0 ? lines[back]!.message : undefined;
          if (tailOf !== undefined) inside.set(tailOf, [...(inside.get(tailOf) ?? []), i + 1]);
          else if (m !== undefined && after?.message === m && !after.msh)
            inside.set(m, [...(inside.get(m) ?? []), i + 1]);
          else outside.push(i + 1);
        });

        const splitter = new Hl7Splitter('f.hl7');
        const out = [];
        let from = 0;
        for (const cut of [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b)) {
          out.push(...splitter.push(text.slice(from, cut)));
          from = cut;
        }
        out.push(...splitter.push(text.slice(from)), ...splitter.end());

        expect(out.map((m) => m.segments)).toEqual(messages.map((extra, m) => message(m + 1, extra)));
        expect(out.map((m) => (m.stray ?? []).map((s) => s.line))).toEqual(messages.map((_, m) => inside.get(m) ?? []));
        expect(splitter.strayOutside.map((s) => s.line)).toEqual(outside.slice(0, 10));
        const codes = splitter.problems.map((p) => p.code);
        expect(codes.filter((c) => c === 'hl7.strayContent')).toHaveLength(outside.length > 0 ? 1 : 0);
        expect(codes.filter((c) => c === 'hl7.indented')).toHaveLength(indents.some((i) => i !== '') ? 1 : 0);
        // Nothing else: the envelope counts hold, with or without a BHS.
        expect(codes.filter((c) => c !== 'hl7.strayContent' && c !== 'hl7.indented')).toEqual([]);
        expect(looksLikeHl7(text)).toBe(true);
      }),
      { numRuns: Number(process.env.HL7_STRAY_RUNS ?? 300) },
    );
  });

  it('does not take a CSV for HL7 because one of its rows starts like a segment', () => {
    const csv = ['surname,firstName,dateOfBirth', 'MSH|^~\\&|odd row,Alex,1980-01-01', 'Example,Sam,1975-06-30'];
    const rows = Array.from({ length: 20 }, (_, i) => `Row${i},A,1990-01-01`);
    expect(looksLikeHl7([...csv, ...rows].join('\r\n'))).toBe(false);
    expect(looksLikeHl7(['# notes', 'MSH|^~\\&|EPR', 'PID|1'].join('\n'))).toBe(true);
    expect(looksLikeHl7(['# notes', 'MSH is where it starts', 'PID|1'].join('\n'))).toBe(false);
  });

  it("takes an MLLP capture for HL7 whatever its frame holds (hl7apy's frame of 'WRONG'), never for a CSV", () => {
    expect(looksLikeHl7('\x0bWRONG\x1c\r')).toBe(true);
    expect(looksLikeHl7('\ufeff \x0bsurname,firstName\x1c\r')).toBe(true);
    expect(looksLikeHl7('surname,firstName\r\n\x0bExample,Alex\r\n')).toBe(false);
  });
});
