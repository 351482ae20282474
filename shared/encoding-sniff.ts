/**
 * What a file's bytes say about its text encoding, before anything is decoded: byte order marks, the zero bytes
 * of UTF-16 and UTF-32 without one, the escape sequences of ISO-2022, the byte pairs of double-byte Asian
 * encodings, and HL7's own declaration (MSH-18). No Node modules: the core uses it for files on disk, and a browser
 * can use it for an upload.
 *
 * What Rx Batch reads, and when:
 * - without being told: UTF-8, UTF-16 and UTF-32 (a BOM, or the zero bytes of mostly-ASCII text), else
 *   Windows-1252 (what Excel on a UK Windows machine writes);
 * - when it is named (MSH-18 of an HL7 file, or the encoding chosen for the import): also ISO 8859-1…9 and -15,
 *   Shift_JIS, EUC-JP, GB18030 (and so GB2312 and GBK), Big5 and EUC-KR;
 * - never: ISO-2022-JP, -KR and -CN (7-bit text switched by escape sequences; MSH-18 `ISO IR87`, `ISO IR159`),
 *   CNS 11643 (EUC-TW) and UTF-7. Those are refused by name, with "save it as UTF-8".
 * Double-byte text that is not named is refused too, naming the likely encoding: telling Shift_JIS from
 * Windows-1252 by statistics is reliable enough to warn, not to read a patient's name by.
 */

export type Bytes = Uint8Array;

export interface KnownEncoding {
  /** An encoding label both iconv-lite and WHATWG TextDecoder know, e.g. `shift_jis`. */
  encoding: string;
  /** For sentences: `Shift_JIS (Japanese)`. */
  name: string;
}

/** An encoding that Rx Batch does not read, with the words that name it. */
export interface UnreadEncoding {
  name: string;
  /** Its text is 7-bit (ISO-2022, UTF-7): a byte beyond ASCII means the file is not in it, whatever MSH-18 says. */
  sevenBit?: true;
}

const startsWith = (bytes: Bytes, prefix: readonly number[]) => prefix.every((byte, i) => bytes[i] === byte);

/** A byte order mark: which encoding it marks and how many bytes it takes. UTF-32 LE is checked before UTF-16 LE. */
export function bomEncoding(bytes: Bytes): { encoding: string; length: number } | undefined {
  if (startsWith(bytes, [0xef, 0xbb, 0xbf])) return { encoding: 'utf-8', length: 3 };
  if (startsWith(bytes, [0xff, 0xfe, 0x00, 0x00])) return { encoding: 'utf-32le', length: 4 };
  if (startsWith(bytes, [0x00, 0x00, 0xfe, 0xff])) return { encoding: 'utf-32be', length: 4 };
  if (startsWith(bytes, [0xff, 0xfe])) return { encoding: 'utf-16le', length: 2 };
  if (startsWith(bytes, [0xfe, 0xff])) return { encoding: 'utf-16be', length: 2 };
  return undefined;
}

/**
 * UTF-16 or UTF-32 without a BOM: mostly-ASCII text (every CSV and HL7 file: delimiters, digits, codes) has zero
 * bytes in fixed places, at least nine in ten of them, and almost none elsewhere.
 */
export function zeroByteEncoding(bytes: Bytes): string | undefined {
  const n = Math.min(bytes.length, 4096) & ~3;
  if (n < 8) return undefined;
  const zeros = [0, 0, 0, 0];
  for (let i = 0; i < n; i += 1) if (bytes[i] === 0) zeros[i & 3]! += 1;
  const quads = n / 4;
  const many = (count: number) => count > quads * 0.9;
  const few = (count: number) => count < quads * 0.1;
  const [z0, z1, z2, z3] = zeros as [number, number, number, number];
  if (few(z0) && many(z1) && many(z2) && many(z3)) return 'utf-32le';
  if (many(z0) && many(z1) && many(z2) && few(z3)) return 'utf-32be';
  if (few(z0) && many(z1) && few(z2) && many(z3)) return 'utf-16le';
  if (many(z0) && few(z1) && many(z2) && few(z3)) return 'utf-16be';
  return undefined;
}

const ESC = 0x1b;

/**
 * ISO-2022 text: 7-bit bytes whose meaning is switched by escape sequences (ESC $ B: JIS X 0208 follows). Every
 * byte is ASCII, so it passes as valid UTF-8, and decoded so its ESC bytes made it look like binary data.
 */
export function iso2022Encoding(bytes: Bytes): UnreadEncoding | undefined {
  for (let i = bytes.indexOf(ESC); i !== -1 && i < bytes.length - 2; i = bytes.indexOf(ESC, i + 1)) {
    const a = bytes[i + 1];
    const b = bytes[i + 2];
    const c = bytes[i + 3];
    // ESC $ @, ESC $ B, ESC $ ( D (JIS X 0208/0212), ESC ( J, ESC ( I (JIS X 0201).
    if (a === 0x24 && (b === 0x40 || b === 0x42 || (b === 0x28 && c === 0x44)))
      return { name: 'ISO-2022-JP (Japanese, JIS X 0208 switched in by escape sequences)' };
    if (a === 0x28 && (b === 0x4a || b === 0x49))
      return { name: 'ISO-2022-JP (Japanese, JIS X 0201 switched in by escape sequences)' };
    // ESC $ ) C: KS X 1001.
    if (a === 0x24 && b === 0x29 && c === 0x43) return { name: 'ISO-2022-KR (Korean, switched by escape sequences)' };
    // ESC $ ) A, ESC $ ) G, ESC $ ) E, ESC $ * H: GB 2312, CNS 11643, ISO-IR-165.
    if (a === 0x24 && ((b === 0x29 && (c === 0x41 || c === 0x47 || c === 0x45)) || (b === 0x2a && c === 0x48)))
      return { name: 'ISO-2022-CN (Chinese, switched by escape sequences)' };
  }
  return undefined;
}

interface CharacterCheck {
  valid: boolean;
  /** Characters above 0x7F: pairs, and single bytes where the encoding has them (Shift_JIS half-width katakana). */
  characters: number;
  /** Of those, the ones next to another: Asian text runs them together; a Windows-1252 ’ or é stands alone. */
  inRuns: number;
  pairs: number;
  /** Pairs whose first byte is in 0x81–0x9F (Shift_JIS kana and level-1 kanji; never EUC). */
  lowLeads: number;
  /** Pairs whose first byte is 0xA4 or 0xA5 (hiragana and katakana rows in EUC-JP). */
  kana: number;
  /**
   * Characters with an ASCII letter right before or after them (not one taken as a trail byte): a Windows-1252 é,
   * ’ or “ sits inside or against a word; Japanese and Chinese text meets Latin letters only now and then.
   */
  nextToLetters: number;
}

const isLetter = (byte: number | undefined) =>
  byte !== undefined && ((byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a));

/**
 * Walks the bytes as a double-byte encoding: `single` bytes are characters of their own, `lead` bytes start a pair
 * whose second byte must be a `trail`. Invalid at the first byte that fits neither (a pair cut off by the end of a
 * sample is not held against it).
 */
function checkCharacters(
  bytes: Bytes,
  whole: boolean,
  single: (byte: number) => boolean,
  lead: (byte: number) => boolean,
  trail: (byte: number) => boolean,
): CharacterCheck {
  const out: CharacterCheck = {
    valid: true,
    characters: 0,
    inRuns: 0,
    pairs: 0,
    lowLeads: 0,
    kana: 0,
    nextToLetters: 0,
  };
  let run = 0;
  let afterLetter = false;
  const endRun = () => {
    if (run >= 2) out.inRuns += run;
    run = 0;
  };
  for (let i = 0; i < bytes.length; i += 1) {
    const byte = bytes[i]!;
    if (byte < 0x80) {
      endRun();
      afterLetter = isLetter(byte);
      continue;
    }
    out.characters += 1;
    run += 1;
    const before = afterLetter;
    afterLetter = false;
    if (single(byte)) {
      if (before || isLetter(bytes[i + 1])) out.nextToLetters += 1;
      continue;
    }
    if (!lead(byte)) return { ...out, valid: false };
    if (i + 1 >= bytes.length) {
      out.valid = !whole;
      break;
    }
    if (!trail(bytes[i + 1]!)) return { ...out, valid: false };
    out.pairs += 1;
    if (before || isLetter(bytes[i + 2])) out.nextToLetters += 1;
    if (byte <= 0x9f) out.lowLeads += 1;
    if (byte === 0xa4 || byte === 0xa5) out.kana += 1;
    i += 1;
  }
  endRun();
  return out;
}

const inRange = (low: number, high: number) => (byte: number) => byte >= low && byte <= high;
const never = () => false;

/** How many of the bytes above 0x7F are in well-formed UTF-8 sequences. */
function utf8Bytes(bytes: Bytes): number {
  let count = 0;
  for (let i = 0; i < bytes.length; i += 1) {
    const lead = bytes[i]!;
    if (lead < 0x80) continue;
    const length =
      lead >= 0xc2 && lead <= 0xdf ? 2 : lead >= 0xe0 && lead <= 0xef ? 3 : lead >= 0xf0 && lead <= 0xf4 ? 4 : 0;
    let ok = length > 0 && i + length <= bytes.length;
    for (let k = 1; ok && k < length; k += 1) ok = (bytes[i + k]! & 0xc0) === 0x80;
    if (!ok) continue;
    count += length;
    i += length - 1;
  }
  return count;
}

/**
 * Eight characters or more, every byte in place, most characters run together and few against Latin letters: the
 * text is in that encoding. (Short English text whose quotes and accents happen to form valid pairs, as in
 * `‘a…’ ‘aß“’`, still has its words beside them.)
 */
const fits = (check: CharacterCheck) =>
  check.valid &&
  check.characters >= 8 &&
  check.inRuns >= check.characters * 0.6 &&
  check.nextToLetters <= check.characters * 0.25;

/**
 * Text in a double-byte Asian encoding (asked only of text that is not valid UTF-8): every byte above 0x7F fits
 * the encoding's pairs, and its characters run together (a name is two to four of them), where Windows-1252 text
 * has single accented letters and quotes between ASCII (a ’ before a letter is a valid Shift_JIS pair, but alone);
 * and they are not nearly all UTF-8 sequences. Undefined when the bytes do not look like one, or are too few to
 * tell.
 */
export function doubleByteEncoding(bytes: Bytes, whole: boolean): KnownEncoding | undefined {
  let high = 0;
  for (let i = 0; i < bytes.length; i += 1) if (bytes[i]! >= 0x80) high += 1;
  // UTF-8 with a few stray bytes (two files pasted together) is not Asian text: nearly all its bytes above 0x7F are
  // in UTF-8 sequences. (EUC's second bytes make some accidental ones, so "nearly all", not "most".)
  if (high < 8 || high - utf8Bytes(bytes) <= Math.max(2, high * 0.1)) return undefined;
  // Shift_JIS: half-width katakana alone (A1–DF); leads 81–9F and E0–FC; trails 40–7E and 80–FC.
  const sjis = checkCharacters(
    bytes,
    whole,
    inRange(0xa1, 0xdf),
    (b) => inRange(0x81, 0x9f)(b) || inRange(0xe0, 0xfc)(b),
    (b) => inRange(0x40, 0x7e)(b) || inRange(0x80, 0xfc)(b),
  );
  // EUC (JP, KR, CN/GB2312): both bytes A1–FE (EUC-JP's 8E prefix of half-width katakana counts as a lead here).
  const euc = checkCharacters(bytes, whole, never, (b) => inRange(0xa1, 0xfe)(b) || b === 0x8e, inRange(0xa1, 0xfe));
  // GBK and Big5: leads 81–FE, trails 40–7E and 80–FE.
  const gbk = checkCharacters(
    bytes,
    whole,
    never,
    inRange(0x81, 0xfe),
    (b) => inRange(0x40, 0x7e)(b) || inRange(0x80, 0xfe)(b),
  );
  if (fits(sjis) && sjis.pairs > 0 && sjis.lowLeads >= sjis.pairs / 2)
    return { encoding: 'shift_jis', name: 'Shift_JIS (Japanese)' };
  if (fits(euc)) {
    // Hiragana and katakana (rows 0xA4, 0xA5) run through Japanese text; Chinese and Korean text hardly use them.
    return euc.kana > 0 && euc.kana >= euc.pairs * 0.05
      ? { encoding: 'euc-jp', name: 'EUC-JP (Japanese)' }
      : { encoding: 'gb18030', name: 'a Chinese or Korean double-byte encoding (GB2312/GBK, Big5 or EUC-KR)' };
  }
  if (fits(gbk)) return { encoding: 'gb18030', name: 'a Chinese double-byte encoding (GBK or Big5)' };
  if (fits(sjis)) return { encoding: 'shift_jis', name: 'Shift_JIS (Japanese)' };
  return undefined;
}

/** HL7 table 0211 (and the names senders write instead), keyed without spaces, dashes, slashes or case. */
const HL7_CHARACTER_SETS: Record<string, KnownEncoding | UnreadEncoding> = {};
const readAs = (encoding: string, name: string, ...keys: string[]) => {
  for (const key of keys) HL7_CHARACTER_SETS[key] = { encoding, name };
};
const notRead = (name: string, ...keys: string[]) => {
  for (const key of keys) HL7_CHARACTER_SETS[key] = { name };
};
const notReadSevenBit = (name: string, ...keys: string[]) => {
  for (const key of keys) HL7_CHARACTER_SETS[key] = { name, sevenBit: true };
};
readAs('ascii', 'ASCII', 'ASCII', 'USASCII', 'ISOIR6');
// ISO 8859-1 is read as Windows-1252, its superset (the C1 control bytes are Windows-1252's printable ones).
readAs('windows-1252', 'ISO 8859-1', '88591', 'ISO88591', 'ISOIR100', 'LATIN1');
readAs('windows-1252', 'Windows-1252', 'WINDOWS1252', 'CP1252');
for (const [part, ir] of [
  ['2', '101'],
  ['3', '109'],
  ['4', '110'],
  ['5', '144'],
  ['6', '127'],
  ['7', '126'],
  ['8', '138'],
  ['9', '148'],
  ['15', '203'],
] as const) {
  readAs(`iso-8859-${part}`, `ISO 8859-${part}`, `8859${part}`, `ISO8859${part}`, `ISOIR${ir}`);
}
readAs('utf-8', 'UTF-8', 'UNICODEUTF8', 'UTF8', 'ISOIR192');
readAs('utf-16', 'UTF-16', 'UNICODEUTF16', 'UTF16', 'UNICODE', 'UCS2');
readAs('utf-32', 'UTF-32', 'UNICODEUTF32', 'UTF32');
readAs('gb18030', 'GB 18030', 'GB180302000', 'GB18030', 'GBK', 'GB2312', 'CP936');
readAs('euc-kr', 'KS X 1001 (EUC-KR)', 'KSX1001', 'EUCKR', 'KSC5601', 'CP949');
readAs('big5', 'Big5', 'BIG5', 'CP950');
// JIS X 0201 in 8 bits (roman and half-width katakana) is the single-byte half of Shift_JIS.
readAs('shift_jis', 'JIS X 0201', 'ISOIR14', 'ISOIR13');
readAs('shift_jis', 'Shift_JIS', 'SHIFTJIS', 'SJIS', 'CP932', 'WINDOWS31J', 'MSKANJI');
readAs('euc-jp', 'EUC-JP', 'EUCJP');
notReadSevenBit('ISO-2022-JP (JIS X 0208, MSH-18 ISO IR87)', 'ISOIR87', 'ISO2022JP', 'JIS', 'CSISO2022JP');
notReadSevenBit('ISO-2022-JP with JIS X 0212 (MSH-18 ISO IR159)', 'ISOIR159');
notReadSevenBit('ISO-2022-KR', 'ISO2022KR');
notReadSevenBit('ISO-2022-CN', 'ISO2022CN');
notRead('CNS 11643 (EUC-TW)', 'CNS116431992', 'CNS11643', 'EUCTW');
notReadSevenBit('UTF-7', 'UTF7', 'UNICODEUTF7');

const characterSetKey = (value: string) => value.toUpperCase().replace(/[\s\-_/.]/g, '');

/**
 * An encoding named in words (MSH-18, or an admin's choice): one Rx Batch reads, one it does not, or undefined
 * when the name is not one it knows.
 */
export function namedEncoding(value: string): KnownEncoding | UnreadEncoding | undefined {
  return HL7_CHARACTER_SETS[characterSetKey(value)];
}

export const isRead = (encoding: KnownEncoding | UnreadEncoding): encoding is KnownEncoding => 'encoding' in encoding;

const isBlank = (char: string) => char === '\x0b' || /\s/.test(char);
const isLineBreak = (char: string) => char === '\r' || char === '\n';
const isSeparator = (char: string) => char !== '' && !/[A-Za-z0-9\s]/.test(char);

/**
 * Where the first `MSH` that starts a line (white space and MLLP start bytes before it allowed) and is followed by a
 * field separator begins. A scan, not `/(?:^|[\r\n])[\s\x0b]*MSH/`: that pattern, finding no MSH, was tried again
 * from every line break of a run of them to the run's end, so a message or file opening with 64 KB of line breaks
 * held the loop for seconds (finding 67). Each run of white space is walked once, back from the MSH after it.
 */
function firstMshAtLineStart(text: string): number | undefined {
  for (let at = text.indexOf('MSH'); at !== -1; at = text.indexOf('MSH', at + 3)) {
    if (!isSeparator(text.charAt(at + 3))) continue;
    let before = at - 1;
    while (before >= 0 && isBlank(text.charAt(before)) && !isLineBreak(text.charAt(before))) before -= 1;
    if (before < 0 || isLineBreak(text.charAt(before))) return at;
  }
  return undefined;
}

/**
 * MSH-18 of the first MSH segment in `text` (the sample read byte for byte as Latin-1: the segment structure of
 * every ASCII-compatible encoding is ASCII): its repetitions, the first being the message's default character set
 * and the others those that escape sequences switch to. Undefined when there is no MSH or it has no MSH-18.
 */
export function readMsh18(text: string): string[] | undefined {
  const start = firstMshAtLineStart(text.slice(0, 64 * 1024));
  if (start === undefined) return undefined;
  const end = text.slice(start).search(/[\r\n]/);
  const segment = end === -1 ? text.slice(start) : text.slice(start, start + end);
  const fields = segment.split(segment.charAt(3));
  const msh18 = fields[17];
  if (msh18 === undefined || msh18.trim() === '') return undefined;
  const repetition = segment.charAt(5) || '~';
  return msh18.split(repetition).map((value) => value.trim());
}

/** The sentence for text in an encoding Rx Batch does not read. */
export function unreadEncodingText(encoding: UnreadEncoding, declared?: string): string {
  return `The file is encoded as ${encoding.name}${declared ? ` (MSH-18 says '${declared}')` : ''}, which Rx Batch does not read; save it as UTF-8 and import it again.`;
}

/** The sentence for double-byte text nobody named: what it looks like, and the two ways to have it read. */
export function undeclaredEncodingText(guess: KnownEncoding): string {
  return `The file is not UTF-8 or Windows-1252 text: its bytes look like ${guess.name}, which Rx Batch reads only when the encoding is named (it does not guess a patient's name in a double-byte encoding). Save it as UTF-8, or import it again with its encoding chosen (e.g. ${guess.encoding}).`;
}

/** What the bytes (and an HL7 file's MSH-18) say: an encoding to read with and warnings, or why it is refused. */
export type EncodingVerdict =
  | { encoding: string; warnings: string[] }
  | { refused: { code: 'file.unsupportedEncoding' | 'file.encodingNotNamed'; text: string }; encoding: string };

const SINGLE_BYTE = /^(?:ascii|windows-1252|iso-8859-\d+)$/;

/** A loop, not `some` with a callback: this runs on every message the intake receives. */
function hasByteBeyondAscii(bytes: Bytes): boolean {
  for (let i = 0; i < bytes.length; i += 1) if (bytes[i]! >= 0x80) return true;
  return false;
}

/** Bytes as Latin-1 text, one character per byte: MSH-18 is ASCII in every encoding it can name but UTF-16/32. */
function latin1(bytes: Bytes): string {
  let text = '';
  // apply takes the bytes as they are; a spread walked an iterator over each (about six times slower).
  for (let i = 0; i < bytes.length; i += 8192) {
    text += String.fromCharCode.apply(null, bytes.subarray(i, i + 8192) as unknown as number[]);
  }
  return text;
}

/**
 * The encoding of a file (or upload) nobody named one for, for the core and the page alike. In order: a BOM; the
 * zero bytes of UTF-16/32; ISO-2022 escape sequences (refused by name); an HL7 file's MSH-18 where it names an
 * encoding Rx Batch reads (refused where it names one it does not, and the file is not plain ASCII, but for a 7-bit
 * set named over valid UTF-8); valid UTF-8; double-byte Asian text (refused, naming the likely encoding); else
 * Windows-1252. Where MSH-18 names a single-byte set (ASCII, ISO 8859) but the bytes are valid UTF-8 with characters
 * beyond ASCII, UTF-8 wins (random Latin-1 text is never valid UTF-8; a default MSH-18 copied into every message is
 * common), with a warning; a double-byte set it names is trusted. `sample` is the file's start (`whole` when it is all of it); `isUtf8` says whether the whole
 * file is valid UTF-8 (asked only when needed: the core may have to read the rest of a large file).
 */
export async function detectTextEncoding(
  sample: Bytes,
  options: { whole: boolean; isUtf8: () => boolean | Promise<boolean> },
): Promise<EncodingVerdict> {
  const bom = bomEncoding(sample);
  if (bom) return { encoding: bom.encoding, warnings: [] };
  const wide = zeroByteEncoding(sample);
  if (wide) return { encoding: wide, warnings: [] };

  const msh18 = readMsh18(latin1(sample.subarray(0, 64 * 1024)));
  const named = msh18?.map((value) => ({ value, set: value === '' ? undefined : namedEncoding(value) }));
  const iso2022 = iso2022Encoding(sample);
  if (iso2022) {
    const declared = named?.find((n) => n.set && !isRead(n.set))?.value;
    return {
      refused: { code: 'file.unsupportedEncoding', text: unreadEncodingText(iso2022, declared) },
      encoding: 'unknown',
    };
  }
  const warnings: string[] = [];
  let utf8: boolean | undefined;
  const isUtf8 = async () => (utf8 ??= await options.isUtf8());

  const beyondAscii = hasByteBeyondAscii(sample);
  const unread = named?.find((n) => n.set && !isRead(n.set));
  const set = unread?.set;
  if (unread && set && !isRead(set) && beyondAscii) {
    // A file converted to UTF-8 with its MSH-18 left as it was (as Japanese samples are): 7-bit text it cannot be.
    if (!set.sevenBit || !(await isUtf8()))
      return {
        refused: { code: 'file.unsupportedEncoding', text: unreadEncodingText(set, unread.value) },
        encoding: 'unknown',
      };
    warnings.push(
      `MSH-18 says '${unread.value}', but the file is not in ${set.name}, whose text is 7-bit: it holds bytes beyond ASCII and is valid UTF-8, so it was read as UTF-8.`,
    );
    return { encoding: 'utf-8', warnings };
  }

  const first = named?.[0];
  const declared = first?.set && isRead(first.set) ? first.set : undefined;
  if (first && first.value !== '' && !first.set) {
    warnings.push(
      `MSH-18 names the character set '${first.value}', which Rx Batch does not know; the encoding was told from the bytes.`,
    );
  }
  if (first && declared) {
    const honoured = await honourDeclared(declared, first.value, beyondAscii, isUtf8, (text) => warnings.push(text));
    if (honoured) return { encoding: honoured, warnings };
  }
  if (await isUtf8()) return { encoding: 'utf-8', warnings };
  const double = doubleByteEncoding(sample, options.whole);
  if (double)
    return {
      refused: { code: 'file.encodingNotNamed', text: undeclaredEncodingText(double) },
      encoding: double.encoding,
    };
  return { encoding: 'windows-1252', warnings };
}

/** The encoding MSH-18 names, where the bytes do not say otherwise; undefined to detect it from the bytes. */
async function honourDeclared(
  declared: KnownEncoding,
  value: string,
  beyondAscii: boolean,
  isUtf8: () => Promise<boolean>,
  warn: (text: string) => void,
): Promise<string | undefined> {
  const { encoding } = declared;
  if (encoding === 'utf-16' || encoding === 'utf-32') {
    // Its MSH was read byte for byte as ASCII: the file is not UTF-16 or UTF-32.
    warn(
      `MSH-18 says '${value}', but the file is not ${declared.name} (its MSH segment reads as ASCII); the encoding was told from the bytes.`,
    );
    return undefined;
  }
  if (!beyondAscii) return encoding === 'ascii' ? undefined : encoding;
  if (encoding === 'utf-8') {
    if (await isUtf8()) return 'utf-8';
    warn(`MSH-18 says '${value}', but the file is not valid UTF-8; the encoding was told from the bytes.`);
    return undefined;
  }
  if (SINGLE_BYTE.test(encoding) && (await isUtf8())) {
    warn(
      `MSH-18 says '${value}' (${declared.name}), but the file is valid UTF-8 with characters beyond ASCII, so it was read as UTF-8.`,
    );
    return 'utf-8';
  }
  if (encoding === 'ascii') {
    warn(`MSH-18 says '${value}', but the file holds characters beyond ASCII; the encoding was told from the bytes.`);
    return undefined;
  }
  return encoding;
}
