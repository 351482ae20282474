import { randomBytes } from 'node:crypto';
import { cutText } from '../../../shared/cut-text.js';
import { Hl7ParseError, readDelimiters, type Hl7Delimiters } from '../model/hl7-adapter.js';

/**
 * The header of a received message, read just far enough to acknowledge it (the importer reads the rest), and
 * the HL7 acknowledgement for it: MSH mirrored as HL7 requires (sending and receiving application and facility
 * swapped, MSH-9 `ACK^<trigger>^ACK`, a new MSH-10, MSH-11 and MSH-12 as received, the message's own separators),
 * MSA-1 `AA`/`AE`/`AR` (or an enhanced-mode sender's `CA`/`CR`: `acknowledgmentCode`), MSA-2 = the message's MSH-10,
 * one ERR per problem.
 */

export interface MessageHeader {
  fieldSeparator: string;
  /**
   * MSH-2 as received: component, repetition, escape, subcomponent (and truncation in 2.7+); an older sender's may
   * give only the first two or three.
   */
  encodingCharacters: string;
  /** MSH-n as received (escaped text), by n; MSH-1 is the field separator. */
  field(n: number): string;
  /** The first component of MSH-n, unescaped. */
  component(n: number, index?: number): string;
  /** MSH-3^MSH-4 (first components): who sent it. */
  sender: string;
  controlId: string;
  /** MSH-9 as `TYPE^TRIGGER` (first two components). */
  messageType: string;
  version: string;
}

/**
 * `readMessageHeader` of a received message's bytes (UTF-8), decoding only what it reads: up to the first line end
 * after the first `MSH` (white space holds no M, so a header at the start is whole; a message that does not start
 * with one is refused either way).
 */
export function readMessageHeaderOf(raw: Buffer): MessageHeader | undefined {
  return readMessageHeader(headerText(raw));
}

/** A received message's bytes (UTF-8) up to the first line end after its first `MSH`: all a header read needs. */
function headerText(raw: Buffer): string {
  const msh = raw.indexOf('MSH');
  if (msh < 0) return raw.toString('utf8');
  const cr = raw.indexOf(0x0d, msh);
  const lf = raw.indexOf(0x0a, msh);
  const end = cr < 0 ? lf : lf < 0 ? cr : Math.min(cr, lf);
  return raw.toString('utf8', 0, end < 0 ? raw.length : end);
}

/** HL7's usual encoding characters, which an ACK to a message whose own MSH-2 cannot be read is written with. */
const USUAL_ENCODING = '^~\\&';

/**
 * A message that opens with MSH and a field separator but whose MSH-2 gives no separators the importer reads
 * (`^~\\&` copied from source code, `^~&` that lost its backslash): why (`readDelimiters`' sentence), and a header
 * that only mirrors it in the refusal, its fields as its field separator splits them (MSA-2 its MSH-10, so the
 * sender can match the AR to the message), written with HL7's usual `^~\&`. Undefined for anything else.
 */
export function unreadableHeaderOf(raw: Buffer): { reason: string; header: MessageHeader | undefined } | undefined {
  const start = headerText(raw).replace(/^[\s\ufeff]+/, '');
  if (!/^MSH[^A-Za-z0-9\s]/.test(start)) return undefined;
  const segment = start.split(/[\r\n]/, 1)[0]!;
  try {
    readDelimiters(segment);
    return undefined;
  } catch (error) {
    if (!(error instanceof Hl7ParseError)) throw error;
    const field = segment.charAt(3);
    // A field separator among the usual encoding characters leaves no ACK to write in them: the sentence alone.
    if (USUAL_ENCODING.includes(field)) return { reason: error.message, header: undefined };
    const [name = 'MSH', , ...rest] = segment.split(field);
    const delimiters = { field, component: '^', repetition: '~', escape: '\\', subcomponent: '&' };
    return { reason: error.message, header: new ReadHeader(field, [name, USUAL_ENCODING, ...rest], delimiters) };
  }
}

/**
 * Reads the MSH segment at the start of `text` (after white space or a BOM); undefined when there is none, or when
 * its MSH-1/MSH-2 are no separators the importer reads (`readDelimiters`: an MSH-2 of two or three characters is
 * read, with no escape or subcomponent character).
 */
export function readMessageHeader(text: string): MessageHeader | undefined {
  const start = text.replace(/^[\s\ufeff]+/, '');
  if (!/^MSH[^A-Za-z0-9\s]/.test(start)) return undefined;
  const fieldSeparator = start.charAt(3);
  const segmentEnd = start.search(/[\r\n]/);
  const segment = segmentEnd < 0 ? start : start.slice(0, segmentEnd);
  let delimiters: Hl7Delimiters;
  try {
    delimiters = readDelimiters(segment);
  } catch (error) {
    if (error instanceof Hl7ParseError) return undefined;
    throw error;
  }
  return new ReadHeader(fieldSeparator, segment.split(fieldSeparator), delimiters);
}

/** The most of a message's sender and control id kept (audit details take 200 characters of each). */
export const IDENTITY_MAX = 200;

/** A header read by `readMessageHeader`: its methods on the prototype, so reading one makes no closures. */
class ReadHeader implements MessageHeader {
  readonly encodingCharacters: string;
  readonly sender: string;
  readonly controlId: string;
  readonly messageType: string;
  readonly version: string;

  constructor(
    readonly fieldSeparator: string,
    private readonly parts: readonly string[],
    private readonly delimiters: Hl7Delimiters,
  ) {
    this.encodingCharacters = parts[1] ?? '';
    const app = this.component(3);
    const facility = this.component(4);
    const type = this.component(9, 0);
    const trigger = this.component(9, 1);
    // Both are named in the message's audit entries, which take 200 characters of each: longer, the message was
    // answered AA and then failed to stage at every try, lost (finding 69). HL7 allows 199 for MSH-10.
    this.sender = cutText(facility ? `${app}^${facility}` : app, IDENTITY_MAX);
    this.controlId = cutText(this.component(10), IDENTITY_MAX);
    this.messageType = trigger ? `${type}^${trigger}` : type;
    this.version = this.component(12);
  }

  field(n: number): string {
    return n === 1 ? this.fieldSeparator : (this.parts[n - 1] ?? '');
  }

  component(n: number, index = 0): string {
    const first = this.field(n).split(this.delimiters.repetition)[0] ?? '';
    return unescapeHl7(first.split(this.delimiters.component)[index] ?? '', this.delimiters);
  }
}

/** The delimiter escapes (`\F\ \S\ \R\ \E\ \T\`) of a header value; none when MSH-2 declares no escape character. */
function unescapeHl7(value: string, d: Hl7Delimiters): string {
  if (d.escape === '' || !value.includes(d.escape)) return value;
  const map: Record<string, string> = { F: d.field, S: d.component, R: d.repetition, E: d.escape, T: d.subcomponent };
  const pattern = new RegExp(`${escapeRegExp(d.escape)}([FSRET])${escapeRegExp(d.escape)}`, 'g');
  // `\T\` where MSH-2 gives no subcomponent separator names nothing: kept as written.
  return value.replace(pattern, (sequence, code: string) => map[code] || sequence);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Text escaped for an HL7 field with these separators (`\F\ \S\ \R\ \E\ \T\`), line breaks as spaces. Only the
 * sender's own separators are escaped, with its own escape character: a `&` is text to a sender whose MSH-2 gives no
 * subcomponent separator. A sender with no escape character (MSH-2 `^~`) cannot be written its field, component or
 * repetition separator as text at all: each becomes a space (white space is never a separator), so the ACK keeps its
 * structure and the words stay readable.
 */
export function escapeHl7(text: string, fieldSeparator = '|', encodingCharacters = '^~\\&'): string {
  const [component = '^', repetition = '~', escape = '', subcomponent = ''] = encodingCharacters;
  const codes = new Map<string, string>([
    [fieldSeparator, 'F'],
    [component, 'S'],
    [repetition, 'R'],
  ]);
  if (escape !== '') codes.set(escape, 'E');
  if (subcomponent !== '') codes.set(subcomponent, 'T');
  let out = '';
  for (const char of text.replace(/[\r\n]+/g, ' ')) {
    const code = codes.get(char);
    if (code === undefined) out += char;
    else out += escape === '' ? ' ' : `${escape}${code}${escape}`;
  }
  return out;
}

export type AckCode = 'AA' | 'AE' | 'AR';

/** One ERR segment: an HL7 error code (table 0357), its name, and our sentence. */
export interface AckError {
  hl7Code: '100' | '101' | '102' | '103' | '200' | '203' | '204' | '205' | '207';
  text: string;
  /** ERR-2 location, e.g. `MSH^1^12`. */
  location?: string;
  /** ERR-4 (HL7 table 0516): `E` unless said; `W` for what the message is not at fault for. */
  severity?: 'E' | 'W';
}

const HL7_ERROR_NAMES: Record<AckError['hl7Code'], string> = {
  '100': 'Segment sequence error',
  '101': 'Required field missing',
  '102': 'Data type error',
  '103': 'Table value not found',
  '200': 'Unsupported message type',
  '203': 'Unsupported version id',
  '204': 'Unknown key identifier',
  '205': 'Duplicate key identifier',
  '207': 'Application internal error',
};

export interface AckOptions {
  code: AckCode;
  errors?: readonly AckError[];
  /** MSH-7 time; default now. */
  now?: Date;
  /** MSH-10 of the ACK; default a new random id. */
  controlId?: string;
}

/** HL7 DTM to the second, in UTC with its offset: 20261126111420+0000. */
export function hl7Time(date: Date): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return (
    `${p(date.getUTCFullYear(), 4)}${p(date.getUTCMonth() + 1)}${p(date.getUTCDate())}` +
    `${p(date.getUTCHours())}${p(date.getUTCMinutes())}${p(date.getUTCSeconds())}+0000`
  );
}

/** This process's random part of ACK control ids; a counter makes each one unique within the process. */
const ACK_ID_PREFIX = `RXB${randomBytes(4).toString('hex').toUpperCase()}`;
let ackIds = 0;

/** A new MSH-10 for an ACK: 19 characters (HL7 2.5 allows 20), without a system call per ACK. */
export function newAckControlId(): string {
  ackIds += 1;
  return `${ACK_ID_PREFIX}${ackIds.toString(36).toUpperCase().padStart(8, '0')}`;
}

const ACK_CONDITIONS = new Set(['AL', 'ER', 'SU', 'NE']);

/**
 * MSA-1 for `code`. A sender that fills MSH-15 (accept acknowledgment type) and leaves MSH-16 (application
 * acknowledgment type) empty or NE speaks enhanced mode and asks for the accept acknowledgment alone: the commit
 * codes, CA once the message is stored (AA and AE here: an AE's problems still go as ERR segments) and CR when it
 * cannot be (AR). Answered AA, such a sender may wait for a CA that never comes. One that fills MSH-16 wants the
 * application acknowledgment too, which this listener cannot send later (it opens no connection to the sender): it
 * gets that one at once, as in original mode. Either way every message is answered, NE and ER/SU included, since a
 * sender on MLLP waits by default.
 */
function acknowledgmentCode(header: MessageHeader | undefined, code: AckCode): string {
  if (!header) return code;
  const accept = header.component(15).trim().toUpperCase();
  const application = header.component(16).trim().toUpperCase();
  if (!ACK_CONDITIONS.has(accept) || (application !== '' && application !== 'NE')) return code;
  return code === 'AR' ? 'CR' : 'CA';
}

/**
 * The acknowledgement of `header` (undefined: the message had no readable MSH, so the ACK uses the default
 * separators and mirrors nothing). Segments end with CR, as HL7 requires.
 */
export function buildAck(header: MessageHeader | undefined, options: AckOptions): string {
  const fs = header?.fieldSeparator ?? '|';
  const enc = header?.encodingCharacters ?? '^~\\&';
  const cs = enc.charAt(0);
  const esc = (text: string) => escapeHl7(text, fs, enc);
  const f = (n: number) => header?.field(n) ?? '';
  const trigger = header ? ((f(9).split(enc.charAt(1))[0] ?? '').split(cs)[1] ?? '') : '';
  const msh = [
    'MSH',
    enc,
    f(5), // sending application: the message's receiving application
    f(6),
    f(3), // receiving application: the message's sender
    f(4),
    hl7Time(options.now ?? new Date()),
    '',
    ['ACK', trigger, 'ACK'].join(cs),
    esc(options.controlId ?? newAckControlId()),
    f(11) || 'P',
    f(12) || '2.5',
  ].join(fs);
  const msa = ['MSA', acknowledgmentCode(header, options.code), header?.field(10) ?? ''].join(fs);
  const segments = [msh, msa];
  for (const error of options.errors ?? []) {
    segments.push(
      [
        'ERR',
        '',
        error.location ? error.location.split('^').map(esc).join(cs) : '',
        [error.hl7Code, esc(HL7_ERROR_NAMES[error.hl7Code]), 'HL70357'].join(cs),
        error.severity ?? 'E',
        '',
        '',
        '',
        esc(error.text),
      ].join(fs),
    );
  }
  return `${segments.join('\r')}\r`;
}

/** A segment-field path as provenance writes it: `PID-11[2].5`, `RXE-7`, `PID-5.1.2`. */
const PATH = /^([A-Z][A-Z0-9]{2})-(\d+)(?:\[(\d+)\])?(?:\.(\d+))?(?:\.(\d+))?$/;
/** Segments read once per item, in item order: the n-th item's is the n-th of them. */
const ITEM_SEGMENTS = new Set(['RXE', 'RXO', 'RXR', 'RXC']);

/**
 * ERR-2 (ERL: segment ^ sequence ^ field ^ repetition ^ component ^ sub-component) for a problem with the body path
 * `field`, from where the importer read that field (`path`, as provenance holds it); undefined when it was not read
 * from the message (a profile's constant, a value that is missing).
 */
export function errorLocation(path: string | undefined, field: string | undefined): string | undefined {
  const m = path ? PATH.exec(path) : null;
  if (!m) return undefined;
  const [, segment, number, repetition, component, subcomponent] = m;
  const item = field ? /^prescribedItems\.(\d+)\./.exec(field) : null;
  const sequence = item && ITEM_SEGMENTS.has(segment!) ? Number(item[1]) + 1 : 1;
  const parts = [
    segment,
    String(sequence),
    number,
    repetition ?? (component ? '1' : ''),
    component ?? '',
    subcomponent ?? '',
  ];
  while (parts.at(-1) === '') parts.pop();
  return parts.join('^');
}
