import { problem } from './problems.js';
import type { Problem } from '../model/imported-order.js';

/**
 * Splits decoded HL7 text into messages as it streams in, so a 20,000-message batch is never one string: segments
 * end with `\r`, `\n` or `\r\n`; MLLP framing (0x0B before a message, 0x1C 0x0D after it) is dropped; an MSH starts
 * a message; FHS/BHS/BTS/FTS envelopes are followed and their counts checked (BTS-1 = messages in the batch,
 * FTS-1 = batches in the file), because a short count is how a truncated transfer shows. BHS and BTS are optional
 * (`[FHS] { [BHS] { MSH… } [BTS] } [FTS]`): messages outside a BHS form one implicit batch, which a BTS may close.
 *
 * Files in the wild are not always clean segment streams. White space before a segment (pasted from a document or
 * source code) is ignored and reported once; a line that is not a segment (a comment, a heading, a wrapped line)
 * is a stray line, never part of a message: outside any message it is listed by line number in one file problem;
 * between two segments of one message it is reported on that message.
 */

export interface SplitMessage {
  /** 1-based. */
  index: number;
  /** The physical line of its MSH. */
  line: number;
  segments: string[];
  /**
   * Lines between this message's segments that are not segments (a wrapped or pasted line?), and lines holding the
   * field separator right after one of its segments (a wrapped tail, `tail`): left out.
   */
  stray?: StrayLine[];
  /** An MLLP frame opened before its MSH (0x0B) that the file ends inside (no 0x1C): the transfer was cut short. */
  unclosedFrame?: boolean;
}

export interface StrayLine {
  /** 1-based physical line of the file (a CR, an LF or a CR LF ends a line). */
  line: number;
  text: string;
  /** Right after the message's last segment it was read with (no blank line between), holding its separator. */
  tail?: boolean;
}

/** The file cannot be read further (a segment beyond the size cap); one file problem says why. */
export class Hl7StreamAbort extends Error {
  constructor(readonly problem: Problem) {
    super(problem.text);
    this.name = 'Hl7StreamAbort';
  }
}

// A real segment is a few hundred characters; a megabyte means binary data or a runaway field.
export const MAX_SEGMENT_CHARS = 1_000_000;
export const MAX_MESSAGE_SEGMENTS = 10_000;
/** Stray lines listed by number in a problem; the rest are counted. */
const MAX_LISTED_LINES = 10;

const LINE_BREAK = /\r\n|\r|\n/;
// MLLP's start (0x0B) and end (0x1C) bytes: matching control characters is the point here. Inside a line they end
// one piece and start the next (a frame with no CR after its last segment or after its end byte).
// eslint-disable-next-line no-control-regex
const FRAMING_GLOBAL = /[\x0b\x1c]+/g;
/**
 * A line break written as text, `\r`, `\n` or `\r\n` (a message copied from source code, JSON or a log), where it
 * ends a segment: before another segment's name and a separator, or at the end of the line. Inside HL7 text a
 * backslash is the escape character, and no escape sequence is a lower-case r or n followed by that.
 */
const TEXT_BREAK = /\\r\\n|\\r|\\n/;
// Escaped twice (a JSON string inside source code, a log of a log) the text is `\\r`: read as one break, so the
// segment before it does not end in a stray escape character.
const TEXT_BREAK_SPLIT = /\\?\\(?:r(?:\\?\\n)?|n)(?=[A-Z][A-Z0-9]{2}[^A-Za-z0-9\s]|$)/;
const DOUBLED_TEXT_BREAK = /\\\\[rn]/;

const isUpper = (c: number) => c >= 65 && c <= 90;
const isUpperOrDigit = (c: number) => isUpper(c) || (c >= 48 && c <= 57);
/** A separator HL7 allows: printable, not a letter, digit or white space. */
const isSeparator = (c: number) => c > 32 && c < 127 && !isUpperOrDigit(c) && !(c >= 97 && c <= 122);

/**
 * Whether a line is an HL7 segment: a three-character name (a capital letter, then capitals or digits), then the
 * field separator (for MSH, FHS and BHS: any separator character, which they declare), or nothing.
 */
export function isSegmentLine(line: string, fieldSeparator: string): boolean {
  if (line.length < 3 || !isUpper(line.charCodeAt(0))) return false;
  if (!isUpperOrDigit(line.charCodeAt(1)) || !isUpperOrDigit(line.charCodeAt(2))) return false;
  if (line.length === 3) return true;
  return isHeaderName(line) ? isSeparator(line.charCodeAt(3)) : line.charAt(3) === fieldSeparator;
}

const isHeaderName = (line: string) => line.startsWith('MSH') || line.startsWith('FHS') || line.startsWith('BHS');

/**
 * Whether an MSH, FHS or BHS line declares separators: MSH-1 and the first three characters of MSH-2 (both, when it
 * has two: `MSH|^~|` is read) are distinct separator characters. Only those are looked at, so an MSH-2 copied with
 * its backslash doubled or from Markdown (`^~\\&`, `^\~\&`) still makes a header, which the parser then refuses
 * saying why.
 */
export function declaresSeparators(line: string): boolean {
  if (!isHeaderName(line)) return false;
  const field = line.charAt(3);
  const end = line.indexOf(field, 4);
  const separators = line.slice(3, end !== -1 && end < 7 ? end : 7);
  return separators.length >= 3 && !/[A-Za-z0-9\s]/.test(separators) && new Set(separators).size === separators.length;
}

/**
 * Segments of the messages read and of their envelopes, and those that often travel with them: a line starting with
 * one of these names in lower or mixed case is that segment. Other names are not guessed at (`Re |`, `Tom|` in a
 * note), except Z-segments, which a profile may read.
 */
export const KNOWN_SEGMENTS: ReadonlySet<string> = new Set(
  'MSH FHS BHS BTS FTS SFT UAC EVN PID PD1 PV1 PV2 NK1 NTE AL1 IAM DG1 OBX OBR ORC RXE RXO RXR RXC RXD RXG RXA TQ1 TQ2 IN1 IN2 IN3 GT1 PRT CTI BLG FT1'.split(
    ' ',
  ),
);

/** `line` with its segment name in capitals when it is a segment whose name is written in lower or mixed case. */
export function inCapitals(line: string, fieldSeparator: string): string | undefined {
  if (line.length < 4 || !/^[A-Za-z][A-Za-z0-9]{2}$/.test(line.slice(0, 3))) return undefined;
  const name = line.slice(0, 3).toUpperCase();
  if (name === line.slice(0, 3) || (!KNOWN_SEGMENTS.has(name) && name.charAt(0) !== 'Z')) return undefined;
  const fixed = name + line.slice(3);
  if (!isSegmentLine(fixed, fieldSeparator)) return undefined;
  // A header in lower case must declare its separators as one in capitals does (`msh|^~\&|`, `msh|^~|`).
  if (isHeaderName(fixed) && !declaresSeparators(fixed)) return undefined;
  return fixed;
}

/** `Line 3`, `Lines 3, 5 and 9`, `Lines 3, 5, … and 4 more`. */
export function listLines(lines: readonly number[], total = lines.length): string {
  const shown = lines.slice(0, MAX_LISTED_LINES);
  if (shown.length === 1 && total === 1) return `Line ${shown[0]}`;
  if (total > shown.length) return `Lines ${shown.join(', ')} and ${total - shown.length} more`;
  return `Lines ${shown.slice(0, -1).join(', ')} and ${shown.at(-1)}`;
}

/** A line quoted for a problem; control characters (a DOS end-of-file 0x1A, NULs) named, since they do not show. */
const excerpt = (text: string) => {
  const shown = text.length > 40 ? `${text.slice(0, 37)}...` : text;
  const name = (c: string) => `U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
  // eslint-disable-next-line no-control-regex
  const visible = shown.replace(/[\x00-\x1f\x7f]/g, name);
  return `'${visible}'`;
};

/**
 * What to do about an envelope that does not add up. A short count or a missing trailer is how a truncated transfer
 * shows (a message cut after an item's RXE would still read as an order, of fewer items), so the file is not
 * staged; the admin gets it again, or, when the sender's envelope itself is wrong, corrects it.
 */
const ENVELOPE_ADVICE =
  'Nothing was staged: ask the sender for the file again, or, if it is whole, correct its FHS, BHS, BTS and FTS lines and import it again.';
const countAdvice = (trailer: 'BTS' | 'FTS', found: number): string =>
  `Nothing was staged: ask the sender for the file again, or, if the count itself is wrong, change ${trailer}-1 to ${found} (or delete the ${trailer} line) and import the file again.`;

interface BatchState {
  declaredAt: number;
  messages: number;
  /** No BHS opened it: messages directly under the FHS, or with no envelope at all (BHS is optional). */
  implicit: boolean;
}

export class Hl7Splitter {
  readonly problems: Problem[] = [];
  /** The FHS and BHS segments before the first message: the file's sender, for choosing its profile. */
  readonly envelope: string[] = [];
  messageCount = 0;
  private pending = '';
  private current: SplitMessage | undefined;
  /** Non-segment lines after the current message's last segment: inside it if another of its segments follows. */
  private trailing: StrayLine[] = [];
  /** No blank or unrelated line since the current message's last segment: a line holding `|` next is its tail. */
  private adjacent = false;
  private fieldSeparator = '|';
  private batch: BatchState | undefined;
  private fileHeader: { batches: number } | undefined;
  private fileClosed = false;
  /** Lines outside any message (up to MAX_LISTED_LINES kept), and how many there were. */
  private outside: StrayLine[] = [];
  private outsideCount = 0;
  private indentedAt: number | undefined;
  private indentedCount = 0;
  /** The first line starting with a byte order mark (a file joined on after another). */
  private markAt: number | undefined;
  private textBreaksAt: number | undefined;
  private textBreakLines = 0;
  /** Whether a text break was written with its backslash doubled (`\\r`). */
  private textBreaksDoubled = false;
  private caseAt: number | undefined;
  private caseCount = 0;
  private caseFirst: string | undefined;
  /** A line holding the next message's MSH after a segment of the last (message files joined): line, value before. */
  private joined: { line: number; before: string; count: number } | undefined;
  private segmentNumber = 0;
  private lineNumber = 0;
  /** The segment count when an MLLP start byte (0x0B) opened a frame no end byte (0x1C) has closed yet. */
  private frameOpenedAt: number | undefined;
  /** The segment number of the current message's MSH. */
  private currentAt = 0;

  constructor(
    private readonly file: string,
    private readonly maxSegmentChars = MAX_SEGMENT_CHARS,
  ) {}

  /** The first lines found outside any message (up to ten; the file problem counts them all). */
  get strayOutside(): readonly StrayLine[] {
    return this.outside;
  }

  /** Feeds decoded text; returns the messages completed by it. */
  push(text: string): SplitMessage[] {
    const out: SplitMessage[] = [];
    const combined = this.pending + text;
    // A CR at the very end may be the first half of a CR LF: it is kept back with its line until the next text.
    const endsWithCr = combined.charCodeAt(combined.length - 1) === 13;
    const lines = (endsWithCr ? combined.slice(0, -1) : combined).split(LINE_BREAK);
    this.pending = (lines.pop() ?? '') + (endsWithCr ? '\r' : '');
    if (this.pending.length > this.maxSegmentChars) this.abortTooLarge();
    for (const line of lines) this.line(line, out);
    return out;
  }

  /** Ends the stream; returns the last message and records envelope problems. */
  end(): SplitMessage[] {
    const out: SplitMessage[] = [];
    const last = this.pending.endsWith('\r') ? this.pending.slice(0, -1) : this.pending;
    if (this.pending) this.line(last, out);
    this.pending = '';
    // A frame still open holding the last message: the file stops inside it (a transfer or a copy cut short), so
    // that message may have lost segments or the end of a value.
    if (this.current && this.frameOpenedAt !== undefined && this.currentAt > this.frameOpenedAt)
      this.current.unclosedFrame = true;
    this.flush(out);
    if (this.batch && !this.batch.implicit) {
      this.fileProblem(
        'hl7.batchUnclosed',
        `The batch that starts at segment ${this.batch.declaredAt} has no BTS trailer: the file may be cut short.`,
      );
    }
    if (this.fileHeader && !this.fileClosed) {
      this.fileProblem('hl7.fileUnclosed', 'The file has an FHS header but no FTS trailer: it may be cut short.');
    }
    if (this.outsideCount > 0) {
      const lines = this.outside.map((stray) => stray.line);
      const [first] = this.outside;
      this.problems.push(
        problem(
          'warning',
          this.file,
          {},
          'hl7.strayContent',
          `${listLines(lines, this.outsideCount)} ${this.outsideCount === 1 ? 'is' : 'are'} outside any message (before its MSH, or text between messages) and ${this.outsideCount === 1 ? 'was' : 'were'} skipped; line ${first!.line} reads ${excerpt(first!.text)}.`,
        ),
      );
    }
    if (this.textBreaksAt !== undefined) {
      const lines = this.textBreakLines;
      this.problems.push(
        problem(
          'warning',
          this.file,
          {},
          'hl7.textLineBreaks',
          `Segments are separated by the text '\\r' or '\\n'${this.textBreaksDoubled ? ' (with the backslash doubled: escaped twice)' : ''} instead of line breaks (first on line ${this.textBreaksAt}${lines > 1 ? `, on ${lines} lines in all` : ''}), as in a message copied from source code, JSON or a log; they were read as separate segments. Export the file from the sending system, or ask the sender for it, to read it as sent.`,
        ),
      );
    }
    if (this.caseAt !== undefined) {
      const many = this.caseCount > 1;
      this.problems.push(
        problem(
          'warning',
          this.file,
          {},
          'hl7.segmentNameCase',
          `${many ? `${this.caseCount} segment names are` : 'A segment name is'} not in capitals (first on line ${this.caseAt}: '${this.caseFirst}'); HL7 names segments in capitals, so ${many ? 'they were' : 'it was'} read as ${many ? 'those segments' : `'${this.caseFirst!.toUpperCase()}'`}. Ask the sender to write segment names in capitals.`,
        ),
      );
    }
    if (this.markAt !== undefined) {
      this.problems.push(
        problem(
          'warning',
          this.file,
          {},
          'hl7.byteOrderMark',
          `Line ${this.markAt} starts with a byte order mark (U+FEFF), the mark a text file begins with, as where message files were joined into one; it was ignored.`,
        ),
      );
    }
    if (this.joined) {
      const { line, before, count } = this.joined;
      this.problems.push(
        problem(
          'warning',
          this.file,
          {},
          'hl7.messagesJoined',
          `Line ${line} holds the end of one message and the MSH of the next with no line break between them${count > 1 ? ` (and ${count - 1} more such ${count === 2 ? 'line' : 'lines'})` : ''}, as when message files are joined and one does not end in a line break; they were read as separate messages, the value before the join as ${excerpt(before)}. Check that value in the preview.`,
        ),
      );
    }
    if (this.indentedAt !== undefined) {
      this.problems.push(
        problem(
          'warning',
          this.file,
          {},
          'hl7.indented',
          `${this.indentedCount === 1 ? 'A segment is' : `${this.indentedCount} segments are`} indented with white space (first on line ${this.indentedAt}), as in a file pasted from a document; the white space before ${this.indentedCount === 1 ? 'it was' : 'them was'} ignored.`,
        ),
      );
    }
    return out;
  }

  private abortTooLarge(): never {
    throw new Hl7StreamAbort(
      problem(
        'error',
        this.file,
        {},
        'hl7.segmentTooLarge',
        `Segment ${this.segmentNumber + 1} is longer than ${this.maxSegmentChars.toLocaleString('en-GB')} characters; this is not an order message (binary data or a broken export?).`,
      ),
    );
  }

  /** An envelope problem (FHS, BHS, BTS, FTS): the file is not staged, so each says what to do. */
  private fileProblem(code: string, text: string, advice = ENVELOPE_ADVICE): void {
    this.problems.push(problem('error', this.file, {}, code, `${text} ${advice}`));
  }

  private addOutside(stray: StrayLine): void {
    this.outsideCount += 1;
    if (this.outside.length < MAX_LISTED_LINES) this.outside.push(stray);
  }

  private flush(out: SplitMessage[]): void {
    // Lines after a message's last segment are between messages, not inside one.
    for (const stray of this.trailing) this.addOutside(stray);
    this.trailing = [];
    if (!this.current) return;
    this.messageCount += 1;
    this.current.index = this.messageCount;
    out.push(this.current);
    this.current = undefined;
  }

  /** BTS-1 or FTS-1: the count, undefined when absent; a count that is no number is said (it checks nothing). */
  private count(segment: string): number | undefined {
    const first = segment.split(this.fieldSeparator)[1]?.trim();
    if (!first) return undefined;
    // `3.0` or `0003` are still counts (an NM field); `three`, `3 of 4` or `-1` cannot be checked.
    if (/^\d+(?:\.0*)?$/.test(first)) return Number(first);
    const name = segment.slice(0, 3);
    this.problems.push(
      problem(
        'warning',
        this.file,
        {},
        'hl7.countUnreadable',
        `The ${name} trailer on line ${this.lineNumber} gives ${name}-1 as ${excerpt(first)}, not a number of ${name === 'BTS' ? 'messages' : 'batches'}, so whether the ${name === 'BTS' ? 'batch' : 'file'} is complete was not checked.`,
      ),
    );
    return undefined;
  }

  /** Ends a batch no BHS opened (at a BHS, an FTS or the end): it needs no BTS. */
  private endImplicitBatch(): void {
    if (this.batch?.implicit) this.batch = undefined;
  }

  private line(rawLine: string, out: SplitMessage[]): void {
    this.lineNumber += 1;
    if (rawLine.includes('\x0b') || rawLine.includes('\x1c')) {
      // Pieces and the framing bytes between them, in order: each 0x0B opens a frame, each 0x1C closes it.
      let at = 0;
      for (const match of rawLine.matchAll(FRAMING_GLOBAL)) {
        this.piece(rawLine.slice(at, match.index), out);
        const bytes = match[0];
        const lastStart = bytes.lastIndexOf('\x0b');
        if (lastStart > bytes.lastIndexOf('\x1c')) this.frameOpenedAt = this.segmentNumber;
        else this.frameOpenedAt = undefined;
        at = match.index + bytes.length;
      }
      this.piece(rawLine.slice(at), out);
    } else this.piece(rawLine, out);
  }

  /** A segment's text, written as text breaks: its segments, each read on the line it came from. */
  private textBroken(line: string, out: SplitMessage[]): boolean {
    const pieces = line.split(TEXT_BREAK_SPLIT);
    if (pieces.length === 1) return false;
    // A line with no segment among its pieces (only `\r`, or `note\r`) separates no segments: the whole line is one
    // stray line, reported by its number as it reads, never nothing at all.
    if (!pieces.some((piece) => isSegmentLine(piece.trimStart(), this.fieldSeparator))) return false;
    this.textBreaksAt ??= this.lineNumber;
    this.textBreakLines += 1;
    if (!this.textBreaksDoubled && DOUBLED_TEXT_BREAK.test(line)) this.textBreaksDoubled = true;
    for (const piece of pieces) this.piece(piece, out, true);
    return true;
  }

  /**
   * A segment whose name is written in lower or mixed case (`pid|…`, `Rxe|…`): HL7 names segments in capitals, yet
   * the line is plainly that segment, and leaving it out lost a patient or an item to a stray-line warning. Read
   * under its capital name, said once in a file warning. A header (MSH, FHS, BHS) so written must also declare its
   * separators, as one in capitals does; undefined when the line is no segment in any case.
   */
  private upperCased(line: string): string | undefined {
    const fixed = inCapitals(line, this.fieldSeparator);
    if (fixed === undefined) return undefined;
    this.caseAt ??= this.lineNumber;
    this.caseCount += 1;
    this.caseFirst ??= line.slice(0, 3);
    return fixed;
  }

  /**
   * Message files joined (`cat a.hl7 b.hl7`) where the first does not end in a line break, as many systems write a
   * message: the next MSH runs on from the last segment (`RXE|…|0MSH|^~\&|…`, a byte order mark between them when the
   * second file has one). Its header, written as the current message's own (MSH, field separator, MSH-2 and the
   * separator after it), cannot be a value: unescaped separators would have split it. Split there, said once.
   */
  private splitJoinedHeader(line: string, out: SplitMessage[], broken: boolean): boolean {
    const header = this.current!.segments[0]!;
    const end = header.indexOf(this.fieldSeparator, 4);
    if (end === -1) return false;
    const at = line.indexOf(header.slice(0, end + 1), 1);
    if (at === -1) return false;
    const head = line.slice(0, at).replace(/\ufeff+$/, '');
    if (this.joined) this.joined.count += 1;
    else this.joined = { line: this.lineNumber, before: head.split(this.fieldSeparator).at(-1) ?? '', count: 1 };
    this.piece(head, out, broken);
    this.adjacent = false;
    this.piece(line.slice(at), out, broken);
    return true;
  }

  /** One line, or a piece of one between MLLP framing bytes or text breaks. */
  private piece(text: string, out: SplitMessage[], broken = false): void {
    let line = text;
    if (line === '') {
      this.adjacent = false;
      return;
    }
    if (line.length > this.maxSegmentChars) this.abortTooLarge();
    const first = line.charCodeAt(0);
    if (first <= 32 || first === 0xfeff || first === 0xa0) {
      const trimmed = line.trimStart();
      if (trimmed === '') {
        this.adjacent = false;
        return;
      }
      // Byte order marks alone before it: the mark a file begins with, here where another file was joined on.
      const marks = first === 0xfeff && /^\ufeff+$/.test(line.slice(0, line.length - trimmed.length));
      if (isSegmentLine(trimmed, this.fieldSeparator)) {
        if (marks) this.markAt ??= this.lineNumber;
        else {
          this.indentedAt ??= this.lineNumber;
          this.indentedCount += 1;
        }
      }
      line = trimmed;
    }
    if (!broken && line.includes('\\') && TEXT_BREAK.test(line) && this.textBroken(line, out)) return;
    if (this.current && !line.startsWith('MSH') && this.splitJoinedHeader(line, out, broken)) return;
    if (!isUpper(line.charCodeAt(0)) || !isUpperOrDigit(line.charCodeAt(1)) || !isUpperOrDigit(line.charCodeAt(2))) {
      const named = this.upperCased(line);
      if (named !== undefined) line = named;
    }
    if (!isSegmentLine(line, this.fieldSeparator)) {
      const stray = { line: this.lineNumber, text: line.trimEnd() };
      // A wrapped segment's tail (its later fields on a line of their own, as a mail client or an 80-column viewer
      // breaks it) is the message's, said on its order, not a line between messages.
      if (this.current && this.adjacent && line.includes(this.fieldSeparator)) {
        (this.current.stray ??= []).push({ ...stray, tail: true });
        return;
      }
      this.adjacent = false;
      if (this.current) this.trailing.push(stray);
      else this.addOutside(stray);
      return;
    }
    this.adjacent = false;
    this.segmentNumber += 1;
    const name = line.slice(0, 3);
    switch (name) {
      case 'MSH':
        this.flush(out);
        this.fieldSeparator = line.charAt(3) || '|';
        this.current = { index: 0, line: this.lineNumber, segments: [line] };
        this.currentAt = this.segmentNumber;
        this.adjacent = true;
        if (!this.batch) {
          // Messages outside a BHS form a batch of their own: one for the FTS count.
          this.batch = { declaredAt: this.segmentNumber, messages: 0, implicit: true };
          if (this.fileHeader) this.fileHeader.batches += 1;
        }
        this.batch.messages += 1;
        return;
      case 'FHS':
        this.flush(out);
        if (this.messageCount === 0 && this.envelope.length < 4) this.envelope.push(line);
        this.fieldSeparator = line.charAt(3) || '|';
        if (this.fileHeader)
          this.fileProblem('hl7.fileHeader', `A second FHS header at segment ${this.segmentNumber}.`);
        this.endImplicitBatch();
        this.fileHeader = { batches: 0 };
        return;
      case 'BHS':
        this.flush(out);
        if (this.messageCount === 0 && this.envelope.length < 4) this.envelope.push(line);
        this.fieldSeparator = line.charAt(3) || '|';
        this.endImplicitBatch();
        if (this.batch) {
          this.fileProblem(
            'hl7.batchUnclosed',
            `The batch that starts at segment ${this.batch.declaredAt} has no BTS trailer before the next BHS.`,
          );
        }
        this.batch = { declaredAt: this.segmentNumber, messages: 0, implicit: false };
        if (this.fileHeader) this.fileHeader.batches += 1;
        return;
      case 'BTS': {
        this.flush(out);
        const declared = this.count(line);
        if (!this.batch) {
          this.fileProblem(
            'hl7.batchTrailer',
            `A BTS trailer at segment ${this.segmentNumber} (line ${this.lineNumber}) ends no batch: no message or BHS header comes before it.`,
          );
          return;
        }
        if (declared !== undefined && declared !== this.batch.messages) {
          this.fileProblem(
            'hl7.batchCount',
            `The BTS trailer says the batch holds ${declared} ${declared === 1 ? 'message' : 'messages'}, but it holds ${this.batch.messages}: the file may be incomplete or edited.`,
            countAdvice('BTS', this.batch.messages),
          );
        }
        this.batch = undefined;
        return;
      }
      case 'FTS': {
        this.flush(out);
        this.endImplicitBatch();
        const declared = this.count(line);
        if (!this.fileHeader) {
          this.fileProblem('hl7.fileTrailer', `An FTS trailer at segment ${this.segmentNumber} without an FHS header.`);
          return;
        }
        if (declared !== undefined && declared !== this.fileHeader.batches) {
          this.fileProblem(
            'hl7.fileCount',
            `The FTS trailer says the file holds ${declared} ${declared === 1 ? 'batch' : 'batches'}, but it holds ${this.fileHeader.batches} (messages without a BHS count as one batch).`,
            countAdvice('FTS', this.fileHeader.batches),
          );
        }
        this.fileClosed = true;
        return;
      }
      default:
        if (!this.current) {
          this.addOutside({ line: this.lineNumber, text: line.trimEnd() });
          return;
        }
        if (this.current.segments.length >= MAX_MESSAGE_SEGMENTS) {
          throw new Hl7StreamAbort(
            problem(
              'error',
              this.file,
              {},
              'hl7.messageTooLarge',
              `Message ${this.messageCount + 1} has more than ${MAX_MESSAGE_SEGMENTS.toLocaleString('en-GB')} segments; this is not an order message.`,
            ),
          );
        }
        if (this.trailing.length > 0) {
          // Text between two segments of one message: reported on that message.
          (this.current.stray ??= []).push(...this.trailing);
          this.trailing = [];
        }
        this.current.segments.push(line);
        this.adjacent = true;
    }
  }
}
