import { problem } from './problems.js';
import type { Problem } from './types.js';

/**
 * Splits decoded HL7 text into messages as it streams in, so a 20,000-message batch is never one string: segments
 * end with `\r`, `\n` or `\r\n`; MLLP framing (0x0B before a message, 0x1C 0x0D after it) is dropped; an MSH starts
 * a message; FHS/BHS/BTS/FTS envelopes are followed and their counts checked (BTS-1 = messages in the batch,
 * FTS-1 = batches in the file), because a short count is how a truncated transfer shows.
 */

export interface SplitMessage {
  /** 1-based. */
  index: number;
  segments: string[];
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

const LINE_BREAK = /\r\n|\r|\n/;
// MLLP's start (0x0B) and end (0x1C) bytes: matching control characters is the point here.
// eslint-disable-next-line no-control-regex
const FRAMING = /^[\x0b\x1c]+|[\x0b\x1c]+$/g;

interface BatchState {
  declaredAt: number;
  messages: number;
}

export class Hl7Splitter {
  readonly problems: Problem[] = [];
  /** The FHS and BHS segments before the first message: the file's sender, for choosing its profile. */
  readonly envelope: string[] = [];
  messageCount = 0;
  private pending = '';
  private current: string[] | undefined;
  private fieldSeparator = '|';
  private batch: BatchState | undefined;
  private fileHeader: { batches: number } | undefined;
  private fileClosed = false;
  private strayReported = false;
  private segmentNumber = 0;

  constructor(
    private readonly file: string,
    private readonly maxSegmentChars = MAX_SEGMENT_CHARS,
  ) {}

  /** Feeds decoded text; returns the messages completed by it. */
  push(text: string): SplitMessage[] {
    const out: SplitMessage[] = [];
    const lines = (this.pending + text).split(LINE_BREAK);
    this.pending = lines.pop() ?? '';
    if (this.pending.length > this.maxSegmentChars) this.abortTooLarge();
    for (const line of lines) this.line(line, out);
    return out;
  }

  /** Ends the stream; returns the last message and records envelope problems. */
  end(): SplitMessage[] {
    const out: SplitMessage[] = [];
    if (this.pending) this.line(this.pending, out);
    this.pending = '';
    this.flush(out);
    if (this.batch) {
      this.fileProblem(
        'hl7.batchUnclosed',
        `The batch that starts at segment ${this.batch.declaredAt} has no BTS trailer: the file may be cut short.`,
      );
    }
    if (this.fileHeader && !this.fileClosed) {
      this.fileProblem('hl7.fileUnclosed', 'The file has an FHS header but no FTS trailer: it may be cut short.');
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

  private fileProblem(code: string, text: string): void {
    this.problems.push(problem('error', this.file, {}, code, text));
  }

  private flush(out: SplitMessage[]): void {
    if (!this.current) return;
    this.messageCount += 1;
    out.push({ index: this.messageCount, segments: this.current });
    this.current = undefined;
  }

  private count(segment: string): number | undefined {
    const first = segment.split(this.fieldSeparator)[1]?.trim();
    return first && /^\d+$/.test(first) ? Number(first) : undefined;
  }

  private line(rawLine: string, out: SplitMessage[]): void {
    const line = rawLine.includes('\x0b') || rawLine.includes('\x1c') ? rawLine.replace(FRAMING, '') : rawLine;
    if (line.trim() === '') return;
    if (line.length > this.maxSegmentChars) this.abortTooLarge();
    this.segmentNumber += 1;
    const name = line.slice(0, 3);
    switch (name) {
      case 'MSH':
        this.flush(out);
        this.fieldSeparator = line.charAt(3) || '|';
        this.current = [line];
        if (this.batch) this.batch.messages += 1;
        return;
      case 'FHS':
        this.flush(out);
        if (this.messageCount === 0 && this.envelope.length < 4) this.envelope.push(line);
        this.fieldSeparator = line.charAt(3) || '|';
        if (this.fileHeader)
          this.fileProblem('hl7.fileHeader', `A second FHS header at segment ${this.segmentNumber}.`);
        this.fileHeader = { batches: 0 };
        return;
      case 'BHS':
        this.flush(out);
        if (this.messageCount === 0 && this.envelope.length < 4) this.envelope.push(line);
        this.fieldSeparator = line.charAt(3) || '|';
        if (this.batch) {
          this.fileProblem(
            'hl7.batchUnclosed',
            `The batch that starts at segment ${this.batch.declaredAt} has no BTS trailer before the next BHS.`,
          );
        }
        this.batch = { declaredAt: this.segmentNumber, messages: 0 };
        if (this.fileHeader) this.fileHeader.batches += 1;
        return;
      case 'BTS': {
        this.flush(out);
        const declared = this.count(line);
        if (!this.batch) {
          this.fileProblem('hl7.batchTrailer', `A BTS trailer at segment ${this.segmentNumber} without a BHS header.`);
          return;
        }
        if (declared !== undefined && declared !== this.batch.messages) {
          this.fileProblem(
            'hl7.batchCount',
            `The BTS trailer says the batch holds ${declared} messages, but it holds ${this.batch.messages}: the file may be incomplete or edited.`,
          );
        }
        this.batch = undefined;
        return;
      }
      case 'FTS': {
        this.flush(out);
        const declared = this.count(line);
        if (!this.fileHeader) {
          this.fileProblem('hl7.fileTrailer', `An FTS trailer at segment ${this.segmentNumber} without an FHS header.`);
          return;
        }
        if (declared !== undefined && declared !== this.fileHeader.batches) {
          this.fileProblem(
            'hl7.fileCount',
            `The FTS trailer says the file holds ${declared} batches, but it holds ${this.fileHeader.batches}.`,
          );
        }
        this.fileClosed = true;
        return;
      }
      default:
        if (!this.current) {
          if (!this.strayReported) {
            this.strayReported = true;
            this.problems.push(
              problem(
                'warning',
                this.file,
                {},
                'hl7.strayContent',
                `Segment ${this.segmentNumber} ('${line.slice(0, 20)}') is outside any message (no MSH before it); it was skipped.`,
              ),
            );
          }
          return;
        }
        if (this.current.length >= MAX_MESSAGE_SEGMENTS) {
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
        this.current.push(line);
    }
  }
}
