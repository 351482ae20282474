import { decodeEscapes, escapeTools, type EscapeNote, type EscapeTools } from './hl7-escapes.js';

/**
 * A small typed view of one HL7 v2 message. The rest of the importer sees only this file's types.
 *
 * node-hl7-client (the maintained parser; 4.0 since the move to Node 24) was the first choice. What it does, and
 * what this adapter does instead:
 * - Its tree makes every segment, field, repetition, component and subcomponent an EventEmitter, and it throws
 *   (an Error with a stack trace) for every absent component. Measured here: about 325 µs per message, 6.5 s for
 *   the benchmark's 20,000 messages against 27 ms for a raw segment split. So this adapter splits the structure
 *   itself, lazily, by the delimiters the message declares in MSH-1/MSH-2 (a plain split per level; HL7 has no
 *   quoting, so nothing more is needed). hl7-adapter.test.ts reads every field of the fixture corpus both ways and
 *   checks they agree.
 * - Up to 3.2 its segment finder matched `MSH|` anywhere, so a sending facility such as `CLINIC-MSH` made it
 *   refuse the message as "Multiple MSH segments found"; 4.0 reads such a message (the fixtures test compares it).
 * - Repetitions cannot be addressed by path in 3.2 (`PID.11.2.1` throws "this.message is not defined") and path
 *   reads always return the first repetition; here every level is addressed by index.
 * - It splits segments on `\r` only when the text contains one, else on `\n`, so `\r\n` would leave `\n` at the
 *   start of every segment. Callers (hl7-stream.ts) hand over segments, whatever the line ends were.
 * - Its unescape leaves the formatted-text commands (`\.br\`…) as they are, decodes `\Xhh..\` byte by byte as
 *   Latin-1 (`\XC2A3\` became "Â£"), throws a RangeError on `\XZZ\`, and drops `\Z..\`, `\C..\` and `\M..\`
 *   without a word. Values are therefore decoded by hl7-escapes.ts, which applies what can be applied and notes the
 *   rest (`escapeNotes`), for the importer to report.
 * - Batches (FHS/BHS) and MLLP framing are handled by hl7-stream.ts, not by the library's `Batch`/`FileBatch`
 *   (which need the whole file as one string and do not check the BTS/FTS counts) or its socket-bound `MLLPCodec`.
 */

/**
 * A message's separators. MSH-2 may declare fewer than four (`^~\`, `^~`, as some older senders write it): the
 * escape and subcomponent characters it leaves out are '', and the message then has no such separator: its `&` is
 * text, and with no escape character its `\` too.
 */
export interface Hl7Delimiters {
  field: string;
  component: string;
  repetition: string;
  /** '' when MSH-2 declares none: no escape sequence is read. */
  escape: string;
  /** '' when MSH-2 declares none: a component is never split. */
  subcomponent: string;
  /** MSH-2's fifth character (v2.7 on), when declared: a value ending in it was truncated by the sender. */
  truncation?: string;
}

export class Hl7ParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'Hl7ParseError';
  }
}

export interface Hl7Segment {
  readonly name: string;
  /** The segment as it was in the message (escapes not decoded). */
  readonly raw: string;
  /** 0-based position in the message. */
  readonly position: number;
  /** Number of repetitions of a field (0 when empty). */
  repetitions(field: number): number;
  /**
   * The decoded text at `field.component.subcomponent` (all 1-based) of a repetition (1-based), trimmed; '' when
   * absent or HL7's explicit null (`""`). Numbering follows the standard: MSH-1 is the field separator, MSH-2 the
   * encoding characters.
   */
  value(field: number, component?: number, subcomponent?: number, repetition?: number): string;
  /** Whether the segment holds the subcomponent separator at all (found once, on first use): most hold none. */
  readonly hasSubcomponents: boolean;
  /**
   * Every subcomponent of `field.component` of a repetition, decoded but not trimmed (HL7's null as ''); [] when
   * absent. For telling a component with parts from text holding an unescaped subcomponent separator.
   */
  subcomponents(field: number, component: number, repetition: number): string[];
}

export interface Hl7Message {
  readonly delimiters: Hl7Delimiters;
  readonly segments: readonly Hl7Segment[];
  /** Segments joined with `\r`, as the HL7 endpoint wants them. */
  readonly text: string;
  /** `MSH-9.1^MSH-9.2`, e.g. `RDE^O11`. */
  readonly messageType: string;
  first(name: string): Hl7Segment | undefined;
  all(name: string): Hl7Segment[];
  /**
   * Escape sequences in the values read so far that could not be applied as written: a locally defined one
   * (`\Z..\`, left out), a character-set switch the text could not be read under (kept as written), or an escape
   * character that starts no sequence (kept as text). Each once per value.
   */
  readonly escapeNotes: readonly Hl7EscapeNote[];
}

export interface Hl7EscapeNote extends EscapeNote {
  /** The value it was in, as `PID-5.1` (a repetition after the field: `PID-11[2].1`). */
  path: string;
  /** 1-based segment of the message. */
  segment: number;
}

const SEGMENT_NAME = /^[A-Z][A-Z0-9]{2}$/;
const HEADER_SEGMENTS = new Set(['MSH', 'BHS', 'FHS']);

/**
 * Reads MSH-1 and MSH-2 (or BHS/FHS) and checks they are usable delimiters. MSH-2 gives them by position
 * (component, repetition, escape, subcomponent, then v2.7's truncation): two are the least a message can be split
 * with, and one that gives fewer than four has no escape or subcomponent character (`MSH|^~\|` and `MSH|^~|`, as
 * some older senders write them; hapi-hl7v2's test messages write `MSH|^~}|`).
 */
export function readDelimiters(header: string): Hl7Delimiters {
  const field = header.charAt(3);
  const encoding = header.slice(4, header.indexOf(field, 4) === -1 ? undefined : header.indexOf(field, 4));
  const [component = '', repetition = '', escape = '', subcomponent = ''] = encoding;
  // The separators MSH-2 gives (beyond the fourth, only a truncation character, read below, may follow).
  const given = [field, ...encoding.slice(0, 4)];
  const usable =
    field !== '' &&
    given.length >= 3 &&
    !given.some((c) => /[A-Za-z0-9\s]/.test(c)) &&
    new Set(given).size === given.length &&
    // `^~&` is three usable characters, but it is HL7's usual `^~\&` less its backslash far more often than a
    // sender's choice of `&` as escape character: refused below saying so.
    encoding !== '^~&';
  if (!usable) {
    // `^~\\&`: the escape character written twice, as source code and JSON write a backslash. Every escape in the
    // message is doubled too (`\\T\\`), so it is still refused, but with what to do about it.
    if (escape === '\\' && subcomponent === '\\' && encoding.length > 4 && encoding.length <= 10) {
      throw new Hl7ParseError(
        `${header.slice(0, 3)}-2 is '${encoding}', with its backslash doubled: the file looks copied from source code or JSON, which write a backslash as \\\\ (and a line break as the text \\r). Each \\\\ should be one \\ (MSH-2 is then '${encoding.replace(/\\+/, '\\')}'): save the message as the sending system wrote it, or ask the sender for the file itself`,
      );
    }
    // `^\~\&`: a message pasted into Markdown, which writes a literal `~` (or another mark) after a backslash.
    const unescaped = encoding.replace(/\\([~^|*_#])/g, '$1');
    if (
      unescaped !== encoding &&
      unescaped.length >= 4 &&
      unescaped.length <= 5 &&
      new Set(unescaped).size === unescaped.length
    ) {
      throw new Hl7ParseError(
        `${header.slice(0, 3)}-2 is '${encoding}': the file looks copied from Markdown (a README, a wiki or a chat), which puts a backslash before ${[...new Set(encoding.match(/\\[~^|*_#]/g))].map((pair) => pair.charAt(1)).join(' and ')}. MSH-2 is then '${unescaped}', but every value of the message may be altered the same way: save the message as the sending system wrote it, or ask the sender for the file itself`,
      );
    }
    // `^~ &`, or `^~&` (HL7's usual `^~\&` less one): the backslash turned into a space or dropped, as a copy or a
    // program that eats backslashes leaves it (a shell's echo, a template engine). The message's escapes are altered
    // too, so refused with why.
    const lostEscape =
      (encoding.length === 4 && /\s/.test(escape) && !/[\sA-Za-z0-9]/.test(component + repetition + subcomponent)) ||
      encoding === '^~&';
    if (lostEscape && !/[\sA-Za-z0-9]/.test(field)) {
      throw new Hl7ParseError(
        `${header.slice(0, 3)}-2 is '${encoding}': its escape character (the third, usually \\) is ${encoding.length === 3 ? 'missing' : 'a space'}, as a copy or a program that drops backslashes leaves it. Every escape sequence of the message (\\T\\, \\X..\\) is altered the same way: save the message as the sending system wrote it, or ask the sender for the file itself`,
      );
    }
    throw new Hl7ParseError(unusableText(header.slice(0, 3), field, encoding));
  }
  // HL7 has at most five encoding characters (v2.7's truncation character the fifth): more is no MSH-2 a sender
  // meant (a field separator lost after it, or another program's header), so its separators are not guessed at.
  if (encoding.length > 5) {
    throw new Hl7ParseError(
      `${header.slice(0, 3)}-2 is '${encoding}': ${encoding.length} encoding characters, where HL7 has 4 (component, repetition, escape, subcomponent; usually ^~\\&) and from v2.7 a fifth, the truncation character (#)`,
    );
  }
  // HL7 v2.7 adds a fifth encoding character, the truncation character (usually `#`), ending a value cut short.
  const truncation = encoding.charAt(4);
  const truncates = truncation !== '' && !/[A-Za-z0-9\s]/.test(truncation) && !given.includes(truncation);
  return { field, component, repetition, escape, subcomponent, ...(truncates ? { truncation } : {}) };
}

/** Why MSH-1/MSH-2 give no usable separators, with MSH-2 quoted whole and, when too short, how many it has. */
function unusableText(name: string, field: string, encoding: string): string {
  const count = encoding.length;
  if (count >= 4) {
    return `${name}-1/${name}-2 must give five different separator characters (usually |^~\\&), not '${field}' and '${encoding}'${count === 4 ? '' : ` (${count} encoding characters where HL7 has 4: component, repetition, escape, subcomponent)`}`;
  }
  if (count >= 2) {
    return `${name}-1/${name}-2 must give ${count === 2 ? 'three' : 'four'} different separator characters (usually |^~\\&), not '${field}' and '${encoding}'`;
  }
  return `${name}-1/${name}-2 must give at least three different separator characters (usually |^~\\&), not '${field}' and '${encoding}' (${count} encoding character${count === 1 ? '' : 's'} where HL7 has at least 2: component and repetition, then escape and subcomponent when the message uses them)`;
}

/** Where the piece found by `pieceStart` ends (set by it: a second return value without a tuple per call). */
let pieceEnd = 0;

/**
 * The start of the `n`-th (0-based) piece of `text` between `from` and `to` when split at `separator` (one
 * character), and its end in `pieceEnd`; -1 when there are fewer pieces. The same pieces as `split`, found without
 * making them: a message's values are read by position, not all of them.
 */
function pieceStart(text: string, separator: string, n: number, from: number, to: number): number {
  let start = from;
  for (let i = 0; i < n; i += 1) {
    const next = indexBefore(text, separator, start, to);
    if (next === -1) return -1;
    start = next + 1;
  }
  const end = indexBefore(text, separator, start, to);
  pieceEnd = end === -1 ? to : end;
  return start;
}

/**
 * `separator`'s first place in `text` from `from`, before `to`; -1 when none. Within a repetition the search stops
 * at its end: `indexOf` would look on through every later repetition for a separator none of them holds (a `&`),
 * which made reading each of a field's thousands of repetitions take as long as the whole field.
 */
function indexBefore(text: string, separator: string, from: number, to: number): number {
  if (to === text.length) return text.indexOf(separator, from);
  const code = separator.charCodeAt(0);
  for (let at = from; at < to; at += 1) if (text.charCodeAt(at) === code) return at;
  return -1;
}

/** HL7's explicit null: a field, component or subcomponent that is exactly `""` (spaces around it tolerated). */
function isNull(piece: string): boolean {
  if (piece.length < 2 || piece.length > 8) return false;
  return piece.trim() === '""';
}

class SegmentView implements Hl7Segment {
  readonly name: string;
  private readonly header: boolean;
  private fields: string[] | undefined;
  #hasSubcomponents: boolean | undefined;
  /**
   * Where each repetition of a field starts, found once: counting separators for every read of repetition n made
   * reading all n repetitions (a name or address repeated 8,000 times) take seconds, and a 1 MB segment minutes.
   */
  #repetitionStarts: Map<number, number[]> | undefined;
  /**
   * By field: where each component of its first repetition starts, and after the last the repetition's end + 1.
   * A message's reads are mostly of first repetitions, several of the same field (an address is read six times a
   * component); each read counted the separators again.
   */
  #firstComponents: (number[] | undefined)[] | undefined;

  constructor(
    readonly raw: string,
    readonly position: number,
    private readonly owner: MessageView,
  ) {
    this.name = raw.slice(0, 3);
    this.header = HEADER_SEGMENTS.has(this.name);
  }

  /** The raw text of a field; in MSH, BHS and FHS the separator itself is MSH-1, so MSH-n is piece n - 1. */
  private fieldRaw(field: number): string {
    this.fields ??= this.raw.split(this.owner.delimiters.field);
    const index = this.header ? field - 1 : field;
    return index >= 1 ? (this.fields[index] ?? '') : '';
  }

  /** Like `pieceStart` for a field's repetitions, from the starts found once per field. */
  private repetitionStart(field: number, raw: string, repetition: number): number {
    const separator = this.owner.delimiters.repetition;
    if (repetition <= 1) return pieceStart(raw, separator, 0, 0, raw.length);
    this.#repetitionStarts ??= new Map();
    let starts = this.#repetitionStarts.get(field);
    if (!starts) {
      starts = [0];
      for (let at = raw.indexOf(separator); at !== -1; at = raw.indexOf(separator, at + 1)) starts.push(at + 1);
      this.#repetitionStarts.set(field, starts);
    }
    const start = starts[repetition - 1];
    if (start === undefined) return -1;
    pieceEnd = repetition < starts.length ? starts[repetition]! - 1 : raw.length;
    return start;
  }

  /** MSH-2 as the delimiters read it: 2 to 5 characters. */
  private encodingCharacters(): string {
    const d = this.owner.delimiters;
    return d.component + d.repetition + d.escape + d.subcomponent + (d.truncation ?? '');
  }

  repetitions(field: number): number {
    if (this.header && field <= 2) return 1;
    const raw = this.fieldRaw(field);
    if (raw === '') return 0;
    const separator = this.owner.delimiters.repetition;
    let count = 1;
    for (let at = raw.indexOf(separator); at !== -1; at = raw.indexOf(separator, at + 1)) count += 1;
    return count;
  }

  get hasSubcomponents(): boolean {
    const separator = this.owner.delimiters.subcomponent;
    this.#hasSubcomponents ??= separator !== '' && this.raw.includes(separator);
    return this.#hasSubcomponents;
  }

  subcomponents(field: number, component: number, repetition: number): string[] {
    if (this.header && field <= 2) return [this.value(field)];
    const raw = this.fieldRaw(field);
    const d = this.owner.delimiters;
    const repStart = raw === '' ? -1 : this.repetitionStart(field, raw, repetition);
    if (repStart < 0) return [];
    const compStart = pieceStart(raw, d.component, component - 1, repStart, pieceEnd);
    if (compStart < 0) return [];
    const separatorAt = d.subcomponent === '' ? -1 : indexBefore(raw, d.subcomponent, compStart, pieceEnd);
    if (separatorAt === -1) return [this.value(field, component, 1, repetition)];
    return raw
      .slice(compStart, pieceEnd)
      .split(d.subcomponent)
      .map((piece, i) => (isNull(piece) ? '' : this.owner.decode(piece, this, field, component, i + 1, repetition)));
  }

  /** The component starts of a field's first repetition (see `#firstComponents`). */
  private firstComponents(field: number, raw: string): number[] {
    this.#firstComponents ??= [];
    let starts = this.#firstComponents[field];
    if (starts) return starts;
    const d = this.owner.delimiters;
    const repetitionEnd = raw.indexOf(d.repetition);
    const end = repetitionEnd === -1 ? raw.length : repetitionEnd;
    starts = [0];
    for (let at = indexBefore(raw, d.component, 0, end); at !== -1; at = indexBefore(raw, d.component, at + 1, end)) {
      starts.push(at + 1);
    }
    starts.push(end + 1);
    this.#firstComponents[field] = starts;
    return starts;
  }

  value(field: number, component = 1, subcomponent = 1, repetition = 1): string {
    if (this.header && field <= 2) return field === 1 ? this.owner.delimiters.field : this.encodingCharacters();
    const raw = this.fieldRaw(field);
    if (raw === '') return '';
    const d = this.owner.delimiters;
    let compStart: number;
    if (repetition <= 1 && component >= 1) {
      const starts = this.firstComponents(field, raw);
      if (component >= starts.length) return '';
      compStart = starts[component - 1]!;
      pieceEnd = starts[component]! - 1;
    } else {
      const repStart = this.repetitionStart(field, raw, repetition);
      if (repStart < 0) return '';
      compStart = pieceStart(raw, d.component, component - 1, repStart, pieceEnd);
      if (compStart < 0) return '';
    }
    // With no subcomponent separator (MSH-2 gave none, or the segment holds none) the component is its one
    // subcomponent.
    const subStart =
      d.subcomponent === '' || !this.hasSubcomponents
        ? subcomponent === 1
          ? compStart
          : -1
        : pieceStart(raw, d.subcomponent, subcomponent - 1, compStart, pieceEnd);
    if (subStart < 0 || subStart === pieceEnd) return '';
    const piece = raw.slice(subStart, pieceEnd);
    // `""` is HL7's explicit null ("no value", which for a new order is the same as none), not the text `""`.
    if (isNull(piece)) return '';
    return this.owner.decode(piece, this, field, component, subcomponent, repetition).trim();
  }
}

/** Built once per set of delimiters (nearly always just `|^~\&`), not once per message. */
const toolsByHeader = new Map<string, EscapeTools>();

function delimiterTools(header: string): EscapeTools {
  const key = header.slice(3, 9);
  let tools = toolsByHeader.get(key);
  if (!tools) {
    tools = escapeTools(readDelimiters(header));
    if (toolsByHeader.size < 64) toolsByHeader.set(key, tools);
  }
  return tools;
}

class MessageView implements Hl7Message {
  readonly segments: Hl7Segment[];
  readonly messageType: string;
  readonly delimiters: Hl7Delimiters;

  #text: string | undefined;

  constructor(
    private readonly rawSegments: readonly string[],
    private readonly tools: EscapeTools,
  ) {
    this.delimiters = tools.delimiters;
    this.segments = rawSegments.map((raw, i) => new SegmentView(raw, i, this));
    const msh = this.segments[0]!;
    const code = msh.value(9, 1);
    const trigger = msh.value(9, 2);
    this.messageType = code !== '' && trigger !== '' ? `${code}^${trigger}` : code || trigger;
  }

  /** Joined on first use: the importer keeps the message text itself. */
  get text(): string {
    this.#text ??= this.rawSegments.join('\r');
    return this.#text;
  }

  /** Escapes in values read so far that could not be applied (hl7-escapes.ts), each with where it was. */
  readonly escapeNotes: Hl7EscapeNote[] = [];

  decode(raw: string, segment: SegmentView, field: number, component: number, sub: number, rep: number): string {
    const escape = this.delimiters.escape;
    if ((escape === '' || !raw.includes(escape)) && !this.delimiters.truncation) return raw;
    return decodeEscapes(
      raw,
      this.tools,
      () => this.segments[0]!.value(18),
      (note) => {
        const path = `${segment.name}-${field}${rep > 1 ? `[${rep}]` : ''}.${component}${sub > 1 ? `.${sub}` : ''}`;
        if (!this.escapeNotes.some((n) => n.path === path && n.escape === note.escape))
          this.escapeNotes.push({ ...note, path, segment: segment.position + 1 });
      },
    );
  }

  first(name: string): Hl7Segment | undefined {
    return this.segments.find((segment) => segment.name === name);
  }

  all(name: string): Hl7Segment[] {
    return this.segments.filter((segment) => segment.name === name);
  }
}

/** Parses one message given as its segments (line endings and MLLP framing already removed). */
export function parseHl7Message(rawSegments: readonly string[]): Hl7Message {
  const segments = rawSegments.filter((segment) => segment.length > 0);
  const header = segments[0];
  // `MSH|^~|` is complete (two encoding characters, then the field separator); `MSH|^~` is cut short.
  const complete = header !== undefined && (header.length >= 8 || header.indexOf(header.charAt(3) || '|', 4) !== -1);
  if (!header?.startsWith('MSH') || !complete) {
    throw new Hl7ParseError('the message does not start with a complete MSH segment');
  }
  const tools = delimiterTools(header);
  const field = tools.delimiters.field;
  for (let i = 0; i < segments.length; i += 1) {
    const segment = segments[i]!;
    if ((segment.length > 3 && segment[3] !== field) || !SEGMENT_NAME.test(segment.slice(0, 3))) {
      throw new Hl7ParseError(`segment ${i + 1} ('${segment.slice(0, 20)}') is not an HL7 segment`);
    }
    if (i > 0 && segment.startsWith('MSH')) throw new Hl7ParseError('a second MSH segment inside one message');
  }
  return new MessageView(segments, tools);
}
