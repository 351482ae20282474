import { isUtf8 as isUtf8Buffer } from 'node:buffer';
import iconv from 'iconv-lite';
import type { ImportSource } from './import-source.js';
import { problem } from './problems.js';
import type { Problem } from '../model/imported-order.js';
import { detectTextEncoding, isRead, namedEncoding, unreadEncodingText } from '../../../shared/encoding-sniff.js';
import { notReadableAsChosen } from '../../../shared/encoding-warning.js';

/**
 * Reads an import file opened once (import-source.ts): reads a sample to detect the encoding (BOM; UTF-16/32 by their zero bytes; an HL7 file's
 * MSH-18; else valid UTF-8, else Windows-1252, which is what Excel on a UK Windows machine writes), refuses text in
 * an encoding it does not read by that encoding's name (shared/encoding-sniff.ts) and binary files with one clear
 * problem, then streams the decoded text in chunks so no file is ever held as one string.
 */

export const SAMPLE_BYTES = 64 * 1024;
/**
 * Padding to a block size is a few KiB; a longer run of zero bytes at the end is not padding but a file that is
 * not text (an 8 GB sparse file of zeros took over a minute to refuse when the whole run was read back).
 */
const MAX_PADDING_BYTES = 16 * 1024 * 1024;
const CHUNK_BYTES = 256 * 1024;
const UTF8_CHECK_BYTES = 1024 * 1024;

export interface Inspection {
  totalBytes: number;
  /** The bytes to decode: all but the zero bytes and 0x1A marks that end some files (trailingPadding). */
  textBytes: number;
  encoding: string;
  encodingDetected: boolean;
  /** The decoded sample (the whole file when it is smaller than the sample). */
  sample: string;
  /** Whether `sample` is the whole file. */
  whole: boolean;
  /**
   * Things about the file the admin should know before the rows: a chosen encoding that does not fit it, an MSH-18
   * that names another encoding than the bytes are in.
   */
  warnings: Problem[];
}

export type InspectionResult = { ok: true; inspection: Inspection } | { ok: false; problem: Problem; encoding: string };

/** Files that are not text, by their first bytes: what the file is, and what to do instead. */
const SIGNATURES: readonly { bytes: number[]; what: string; advice?: string }[] = [
  {
    bytes: [0x50, 0x4b, 0x03, 0x04],
    what: 'an Excel workbook (.xlsx) or another ZIP archive',
    advice: 'in Excel, save it as "CSV UTF-8" (File, Save As) and import that',
  },
  {
    bytes: [0xd0, 0xcf, 0x11, 0xe0],
    what: 'an old Excel workbook (.xls) or a Word document',
    advice: 'save it as "CSV UTF-8" and import that',
  },
  { bytes: [0x25, 0x50, 0x44, 0x46], what: 'a PDF document' },
  { bytes: [0x1f, 0x8b], what: 'a gzip archive', advice: 'unpack it first' },
];

function startsWith(buffer: Buffer, bytes: readonly number[]): boolean {
  return bytes.every((byte, i) => buffer[i] === byte);
}

/** Bytes at the end of `chunk` that start a multi-byte character the chunk cuts off (0 to 3). */
function cutCharacterLength(chunk: Buffer): number {
  for (let back = 1; back <= Math.min(3, chunk.length); back += 1) {
    const byte = chunk[chunk.length - back]!;
    if (byte < 0x80) return 0;
    if (byte >= 0xc0) {
      const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2;
      return needed > back ? back : 0;
    }
  }
  return 0;
}

/**
 * Whether the whole file is valid UTF-8. Checked once up front (a native scan, fast) rather than while importing,
 * so a stray Windows-1252 byte deep in a big file decides the encoding before any order is handed on.
 */
async function isUtf8File(source: ImportSource, signal: AbortSignal | undefined): Promise<boolean> {
  // One buffer, read into again; the (at most 3) bytes of a character cut at its end start the next read.
  const buffer = Buffer.allocUnsafe(UTF8_CHECK_BYTES);
  let carried = 0;
  let position = 0;
  for (;;) {
    const bytesRead = await source.read(buffer, carried, buffer.length - carried, position);
    signal?.throwIfAborted();
    if (bytesRead === 0) return carried === 0;
    position += bytesRead;
    const bytes = buffer.subarray(0, carried + bytesRead);
    const cut = cutCharacterLength(bytes);
    if (!isUtf8Buffer(bytes.subarray(0, bytes.length - cut))) return false;
    bytes.copy(buffer, 0, bytes.length - cut);
    carried = cut;
  }
}

function isUtf8Sample(sample: Buffer, whole: boolean): boolean {
  return isUtf8Buffer(whole ? sample : sample.subarray(0, sample.length - cutCharacterLength(sample)));
}

/** The end of a file that is not text: zero bytes (0x00) and DOS end-of-file marks (0x1A, Ctrl-Z). */
interface Padding {
  /** Bytes of the run of 0x00 and 0x1A that ends the file. */
  length: number;
  /** Of them, 0x1A marks. */
  marks: number;
  /** The run of 0x00 alone at its very end (a UTF-16/32 file's padding: a 0x1A there is part of a character). */
  zeros: number;
}

/**
 * What pads the end of the file. Some systems pad an export to a block size with 0x00, and DOS-era ones end it with
 * 0x1A (Ctrl-Z, the CP/M end-of-file mark), sometimes both; read as text they were binary data (the whole file
 * refused), a stray line or an order of one cell. Only the end is looked at (backwards, 64 KiB at a time, where the
 * sample does not already hold it): a zero byte anywhere else is still binary data.
 */
async function trailingPadding(
  source: ImportSource,
  sample: Buffer,
  totalBytes: number,
  signal: AbortSignal | undefined,
): Promise<Padding> {
  const padding: Padding = { length: 0, marks: 0, zeros: 0 };
  let onlyZeros = true;
  let end = totalBytes;
  let block: Buffer | undefined;
  while (end > 0) {
    signal?.throwIfAborted();
    if (padding.length > MAX_PADDING_BYTES) return { length: 0, marks: 0, zeros: 0 };
    // Bytes [from, end) of the file: from the sample where it holds them, else read.
    let from: number;
    let bytes: Buffer;
    if (end <= sample.length) {
      from = 0;
      bytes = sample.subarray(0, end);
    } else {
      from = Math.max(sample.length, end - SAMPLE_BYTES);
      block ??= Buffer.alloc(SAMPLE_BYTES);
      const bytesRead = await source.read(block, 0, end - from, from);
      if (bytesRead < end - from) return { length: 0, marks: 0, zeros: 0 }; // the file shrank meanwhile
      bytes = block.subarray(0, bytesRead);
    }
    for (let i = bytes.length - 1; i >= 0; i -= 1) {
      const byte = bytes[i]!;
      if (byte === 0x1a) {
        padding.marks += 1;
        onlyZeros = false;
      } else if (byte !== 0) return padding;
      padding.length += 1;
      if (onlyZeros) padding.zeros += 1;
    }
    end = from;
  }
  return padding;
}

/** The warning for what was left out at the end: `marks` 0x1A and `zeros` 0x00 bytes. */
function paddingText(marks: number, zeros: number): string {
  const count = (n: number, one: string, many: string) => (n === 1 ? one : `${n.toLocaleString('en-GB')} ${many}`);
  const mark = marks > 0 ? `${count(marks, 'an end-of-file mark', 'end-of-file marks')} (0x1A, Ctrl-Z)` : '';
  const zero = zeros > 0 ? `${count(zeros, 'one zero byte', 'zero bytes')} (0x00)` : '';
  if (zeros === 0) return `The file ends in ${mark}; ${marks === 1 ? 'it was' : 'they were'} left out.`;
  return `The file ends in ${[mark, zero].filter(Boolean).join(' and ')}, padding some systems add to fill a block; they were left out.`;
}

const ZERO_RUN = Buffer.alloc(8);

/** Control characters other than tabs, line ends, form feeds and the MLLP frame bytes mean binary data. */
function looksBinary(text: string): boolean {
  let control = 0;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 0) return true;
    if (c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d && c !== 0x0b && c !== 0x0c && c !== 0x1c) control += 1;
  }
  return control > Math.max(2, text.length * 0.01);
}

export function normaliseEncodingName(name: string): string {
  const key = name
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');
  const known: Record<string, string> = {
    utf8: 'utf-8',
    utf16le: 'utf-16le',
    utf16be: 'utf-16be',
    windows1252: 'windows-1252',
    cp1252: 'windows-1252',
    latin1: 'latin1',
    iso88591: 'latin1',
  };
  return known[key] ?? name.trim();
}

export async function inspectFile(
  source: ImportSource,
  file: string,
  override: string | undefined,
  signal?: AbortSignal,
): Promise<InspectionResult> {
  const totalBytes = source.size;
  const buffer = Buffer.alloc(Math.min(SAMPLE_BYTES, totalBytes));
  const start = buffer.subarray(0, await source.read(buffer, 0, buffer.length, 0));
  const padding = await trailingPadding(source, start, totalBytes, signal);
  // The sample and everything after it stop where the padding starts.
  let textBytes = totalBytes - padding.length;
  let sample = start.subarray(0, Math.min(start.length, textBytes));
  let whole = sample.length >= textBytes;
  const fail = (code: string, text: string, encoding = override ?? 'unknown'): InspectionResult => ({
    ok: false,
    problem: problem('error', file, {}, code, text),
    encoding,
  });

  if (totalBytes === 0) return fail('file.empty', 'The file is empty.');
  if (textBytes === 0) return fail('file.empty', 'The file holds only zero bytes (0x00) or 0x1A marks, no text.');
  // What the file is, first: a real workbook holds runs of zero bytes (an .xls header, a ZIP's directory), and the
  // admin who saved one needs "save it as CSV UTF-8", not "binary data".
  for (const signature of SIGNATURES) {
    if (startsWith(sample, signature.bytes)) {
      const advice = signature.advice ? `: ${signature.advice}` : '';
      return fail('file.binary', `The file is ${signature.what}, not a CSV or HL7 text file${advice}.`);
    }
  }
  // Eight zero bytes in a row are no text in any encoding (UTF-32 has three at most): refused before the encoding
  // is looked for, which may read the whole file.
  if (sample.includes(ZERO_RUN)) {
    return fail('file.binary', 'The file holds binary data, not CSV or HL7 text (is it the right file?).');
  }

  let encoding: string;
  let detected = true;
  const warnings: Problem[] = [];
  if (override) {
    const named = namedEncoding(override);
    if (named && !isRead(named)) return fail('file.unsupportedEncoding', unreadEncodingText(named), override);
    encoding = normaliseEncodingName(override);
    // An HL7 name for it (`8859/2`, `ISO IR100`, `KS X 1001`) where iconv-lite does not know the name as written.
    if (!iconv.encodingExists(encoding) && named && isRead(named)) encoding = named.encoding;
    detected = false;
    if (!iconv.encodingExists(encoding)) {
      return fail(
        'file.unknownEncoding',
        `"${override}" is not an encoding the importer knows (try utf-8 or windows-1252).`,
      );
    }
  } else {
    const chosen = await detectEncoding(source, file, sample, whole, signal);
    if ('problem' in chosen) return { ok: false, problem: chosen.problem, encoding: chosen.encoding };
    encoding = chosen.encoding;
    warnings.push(...chosen.warnings);
  }

  // A UTF-16 or UTF-32 character may end in zero bytes ('\n' is 0A 00 in UTF-16LE), and 0x1A is part of one: its
  // padding is the zero bytes after the last whole character.
  const unit = /^(?:utf-?32|ucs-?4)/i.test(encoding) ? 4 : /^(?:utf-?16|ucs-?2)/i.test(encoding) ? 2 : 1;
  let marks = padding.marks;
  if (unit > 1) {
    textBytes = totalBytes - padding.zeros;
    marks = 0;
    if (textBytes % unit !== 0) textBytes = Math.min(totalBytes, textBytes + unit - (textBytes % unit));
    if (whole) sample = start.subarray(0, Math.min(start.length, textBytes));
    whole = sample.length >= textBytes;
  }
  if (textBytes < totalBytes) {
    const text = paddingText(marks, totalBytes - textBytes - marks);
    warnings.push(problem('warning', file, {}, 'file.trailingPadding', text));
  }

  const decoder = iconv.getDecoder(encoding);
  const text = decoder.write(sample) + (whole ? (decoder.end() ?? '') : '');
  if (looksBinary(text)) {
    return fail('file.binary', 'The file holds binary data, not CSV or HL7 text (is it the right file?).', encoding);
  }
  if (whole && text.trim() === '') return fail('file.empty', 'The file holds only blank lines.', encoding);
  const inspection: Inspection = {
    totalBytes,
    textBytes,
    encoding,
    encodingDetected: detected,
    sample: text,
    whole,
    warnings,
  };
  // UTF-8 chosen for a file that is not: say so once, for the file (each unreadable value is refused on its field).
  if (
    override &&
    encoding === 'utf-8' &&
    !(isUtf8Sample(sample, whole) && (whole || (await isUtf8File(source, signal))))
  ) {
    warnings.push(problem('warning', file, {}, 'file.notUtf8', notReadableAsChosen(encoding)));
  }
  return { ok: true, inspection };
}

type Detected = { encoding: string; warnings: Problem[] } | { problem: Problem; encoding: string };

/** The encoding the bytes and an HL7 file's MSH-18 say (shared/encoding-sniff.ts detectEncoding), as problems. */
async function detectEncoding(
  source: ImportSource,
  file: string,
  sample: Buffer,
  whole: boolean,
  signal: AbortSignal | undefined,
): Promise<Detected> {
  const verdict = await detectTextEncoding(sample, {
    isUtf8: async () => isUtf8Sample(sample, whole) && (whole || (await isUtf8File(source, signal))),
    whole,
  });
  if ('refused' in verdict) {
    return {
      problem: problem('error', file, {}, verdict.refused.code, verdict.refused.text),
      encoding: verdict.encoding,
    };
  }
  return {
    encoding: verdict.encoding,
    warnings: verdict.warnings.map((text) => problem('warning', file, {}, 'hl7.characterSet', text)),
  };
}

export interface StreamOptions {
  signal?: AbortSignal;
  onBytes?: (bytes: number) => void;
  /** Decode only the first `length` bytes (Inspection.textBytes); default the whole file. */
  length?: number;
  /** Bytes after `length` (zero padding), never read but counted in `onBytes` at the end, so progress reaches 100%. */
  padding?: number;
}

/**
 * The file's text in chunks from its start, decoded with iconv-lite (which also drops a byte order mark). One
 * buffer is read into again and again (a read stream allocates a fresh one per chunk: 66 MB of garbage for two
 * passes over 33 MB). The source stays open: its opener closes it.
 */
export async function* decodedChunks(
  source: ImportSource,
  encoding: string,
  options: StreamOptions,
): AsyncGenerator<string> {
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  const decoder = iconv.getDecoder(encoding);
  let left = options.length ?? Number.POSITIVE_INFINITY;
  let position = 0;
  while (left > 0) {
    const bytesRead = await source.read(buffer, 0, Math.min(CHUNK_BYTES, left), position);
    if (bytesRead === 0) break;
    position += bytesRead;
    left -= bytesRead;
    options.signal?.throwIfAborted();
    options.onBytes?.(bytesRead);
    // The decoder copies what it keeps (a character cut at the chunk's end), so the buffer can be reused.
    const text = decoder.write(buffer.subarray(0, bytesRead));
    if (text) yield text;
  }
  const rest = decoder.end();
  if (rest) yield rest;
  if (options.padding) options.onBytes?.(options.padding);
}
