/**
 * HL7 v2 escape sequences (chapter 2, "Use of escape sequences in text fields"), decoded in one value (a
 * subcomponent: escapes never span a separator). What the standard defines is applied; what a receiver cannot apply
 * is kept readable and noted, never dropped without a word:
 * - `\F\ \S\ \T\ \R\ \E\`: the delimiters; `\Xhh…\`: bytes, read as UTF-8 (Latin-1 when they are not), adjacent
 *   ones as one byte sequence; `\H\`/`\N\` (highlighting on/off): nothing, the text stays; formatted-text commands
 *   (`\.br\`…) as the layout they ask for.
 * - `\Zxx\` (locally defined): nothing, and a `local` note: only the sender knows what it stands for.
 * - `\Cxxyy\`/`\Mxxyyzz\` (ISO 2022 character-set switches, up to the next switch or the value's end): a switch that
 *   changes none of the text's characters (back to ASCII, or a right-hand set over ASCII text, or the message's own
 *   MSH-18 set) is applied by leaving the text as it is; JIS X 0208 and JIS X 0201 text (ISO-2022-JP) is decoded;
 *   any other switch keeps the text as written with a `charset` note, since its characters may be wrong.
 * - An escape character that starts no sequence (a lone `\`, an escape cut by a separator, `\Q\`, `\XZZ\`): kept as
 *   text, with an `unreadable` note.
 * - A value ending in MSH-2's truncation character (v2.7 on; `\P\` writes it as text): read without it, with a
 *   `truncated` note, since the sender cut it short.
 */

/**
 * The separators a message declares (the adapter's Hl7Delimiters, named here so neither imports the other); escape
 * and subcomponent are '' when MSH-2 gives none (`^~`, `^~\`).
 */
export interface Hl7Delimiters {
  field: string;
  component: string;
  repetition: string;
  escape: string;
  subcomponent: string;
  truncation?: string;
}

export type EscapeNoteKind = 'local' | 'charset' | 'unreadable' | 'truncated';

export interface EscapeNote {
  kind: EscapeNoteKind;
  /** The escape sequence as written (`\Z01\`, `\M2442\`), or the text around a lone escape character. */
  escape: string;
  /** For a character-set switch: the set it names, when known. */
  set?: string;
}

/** ISO 2022 designations (the escape's bytes after ESC) Rx Batch knows, by the character set they name. */
const DESIGNATIONS: Record<string, { name: string; kind: 'ascii' | 'right' | 'jis' | 'other'; msh18?: string }> = {
  '2842': { name: 'ASCII (ISO IR6)', kind: 'ascii' },
  '284A': { name: 'JIS X 0201 Roman (ISO IR14)', kind: 'jis' },
  '2849': { name: 'JIS X 0201 Katakana (ISO IR13)', kind: 'jis' },
  '2442': { name: 'JIS X 0208 (ISO IR87)', kind: 'jis' },
  '2440': { name: 'JIS C 6226-1978 (ISO IR42)', kind: 'jis' },
  '242844': { name: 'JIS X 0212 (ISO IR159)', kind: 'other' },
  '242943': { name: 'KS X 1001 (ISO IR149)', kind: 'other' },
  '242941': { name: 'GB 2312 (ISO IR58)', kind: 'other' },
  '2D41': { name: 'ISO 8859-1', kind: 'right', msh18: '8859/1' },
  '2D42': { name: 'ISO 8859-2', kind: 'right', msh18: '8859/2' },
  '2D43': { name: 'ISO 8859-3', kind: 'right', msh18: '8859/3' },
  '2D44': { name: 'ISO 8859-4', kind: 'right', msh18: '8859/4' },
  '2D4C': { name: 'ISO 8859-5', kind: 'right', msh18: '8859/5' },
  '2D47': { name: 'ISO 8859-6', kind: 'right', msh18: '8859/6' },
  '2D46': { name: 'ISO 8859-7', kind: 'right', msh18: '8859/7' },
  '2D48': { name: 'ISO 8859-8', kind: 'right', msh18: '8859/8' },
  '2D4D': { name: 'ISO 8859-9', kind: 'right', msh18: '8859/9' },
  '2D62': { name: 'ISO 8859-15', kind: 'right', msh18: '8859/15' },
};

/** The name of the set a `\C..\` or `\M..\` body switches to, when Rx Batch knows it. */
export function designationName(body: string): string | undefined {
  return DESIGNATIONS[body.slice(1).toUpperCase()]?.name;
}

function decodeHexBytes(hex: string): string {
  const bytes = Buffer.from(hex.length % 2 === 0 ? hex : `0${hex}`, 'hex');
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return bytes.toString('latin1');
  }
}

/**
 * A formatted-text (FT) command, `.br` … `.nf`, as the layout it asks for: a line break for a new line (`.br`, `.sp n`,
 * `.ce`), spaces for `.sk n`, nothing for indents and fill mode (`.in`, `.ti`, `.fi`, `.nf`). Text is not laid out here.
 */
function formatCommand(body: string): string | undefined {
  const command = body.slice(1, 3);
  if (command === 'br' || command === 'sp' || command === 'ce') return '\n';
  if (command === 'sk') return ' '.repeat(Math.min(Math.max(Number.parseInt(body.slice(3).trim(), 10) || 1, 1), 20));
  if (command === 'in' || command === 'ti' || command === 'fi' || command === 'nf') return '';
  return undefined;
}

const HEX = /^X[0-9A-Fa-f]*$/;
const SWITCH = /^(?:C[0-9A-Fa-f]{4}|M[0-9A-Fa-f]{4}(?:[0-9A-Fa-f]{2})?)$/;
const ASCII_ONLY = /^[\x20-\x7e]*$/;

/**
 * The text after a character-set switch as the set it names reads it, or undefined when that cannot be done here.
 * `messageSet` is MSH-18's first repetition (the set the text was already decoded in).
 */
function underSet(text: string, body: string, messageSet: () => string): string | undefined {
  const designation = DESIGNATIONS[body.slice(1).toUpperCase()];
  if (!designation) return undefined;
  if (designation.kind === 'ascii') return text;
  // A right-hand (G1) set changes only bytes above 0x7F: ASCII text reads the same, and so does text in the set the
  // message was decoded in.
  if (designation.kind === 'right') {
    if (ASCII_ONLY.test(text)) return text;
    return designation.msh18 && messageSet().replace(/\s/g, '').toUpperCase() === designation.msh18 ? text : undefined;
  }
  if (designation.kind === 'jis') {
    if (!ASCII_ONLY.test(text)) return undefined;
    const bytes = Buffer.from(`\x1b${Buffer.from(body.slice(1), 'hex').toString('latin1')}${text}\x1b(B`, 'latin1');
    try {
      return new TextDecoder('iso-2022-jp', { fatal: true }).decode(bytes);
    } catch {
      return undefined;
    }
  }
  return undefined;
}

export interface EscapeTools {
  delimiters: Hl7Delimiters;
  /** An escape character, anything but it, an escape character; a run of adjacent `\X..\` tokens as one token. */
  token: RegExp;
}

/** Matches nothing: a message with no escape character has no escape sequences. */
const NO_TOKEN = /(?!)/g;

export function escapeTools(delimiters: Hl7Delimiters): EscapeTools {
  if (delimiters.escape === '') return { delimiters, token: NO_TOKEN };
  const e = delimiters.escape.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return { delimiters, token: new RegExp(`(?:${e}X[0-9A-Fa-f]+${e})+|${e}[^${e}]*${e}`, 'g') };
}

/** One escape sequence's text, or undefined for a character-set switch (handled by the caller). */
function decodeToken(token: string, tools: EscapeTools, note: (n: EscapeNote) => void): string | undefined {
  const d = tools.delimiters;
  const body = token.slice(1, -1);
  switch (body) {
    case 'F':
      return d.field;
    case 'S':
      return d.component;
    case 'T':
      // With no subcomponent separator declared, `\T\` names none: kept as text with a note, below.
      if (d.subcomponent) return d.subcomponent;
      break;
    case 'R':
      return d.repetition;
    case 'E':
      return d.escape;
    case 'H':
    case 'N':
      return '';
    case 'P':
      if (d.truncation) return d.truncation;
  }
  const first = body.charAt(0);
  if (first === '.') {
    const layout = formatCommand(body);
    if (layout !== undefined) return layout;
  } else if (first === 'X') {
    if (HEX.test(body)) return decodeHexBytes(body.slice(1));
    // A run of `\X..\` tokens: one byte sequence.
    if (body.includes(d.escape)) return decodeHexBytes(body.split(`${d.escape}${d.escape}X`).join('').slice(1));
  } else if (first === 'Z') {
    note({ kind: 'local', escape: token });
    return '';
  } else if (SWITCH.test(body)) return undefined;
  note({ kind: 'unreadable', escape: token });
  return token;
}

/** `raw` (one subcomponent) with its escapes decoded; `note` hears of each one that could not be applied. */
export function decodeEscapes(
  raw: string,
  tools: EscapeTools,
  messageSet: () => string,
  note: (n: EscapeNote) => void,
): string {
  const { escape: e, truncation } = tools.delimiters;
  if (truncation && raw.trimEnd().endsWith(truncation)) {
    // Cut short by the sender (v2.7's truncation character): the text before it, and a note.
    note({ kind: 'truncated', escape: truncation });
    raw = raw.trimEnd().slice(0, -1);
  }
  if (e === '' || !raw.includes(e)) return raw;
  let out = '';
  // The text since the last character-set switch, and that switch's body (undefined before any).
  let run = '';
  let switched: string | undefined;
  let last = 0;
  const endRun = () => {
    if (switched === undefined) out += run;
    else {
      const read = underSet(run, switched, messageSet);
      if (read === undefined) {
        const set = designationName(switched);
        note({ kind: 'charset', escape: `${e}${switched}${e}`, ...(set ? { set } : {}) });
      }
      out += read ?? run;
    }
    run = '';
  };
  tools.token.lastIndex = 0;
  for (let match = tools.token.exec(raw); match !== null; match = tools.token.exec(raw)) {
    const text = raw.slice(last, match.index);
    last = match.index + match[0].length;
    run += text;
    const decoded = decodeToken(match[0], tools, note);
    if (decoded !== undefined) run += decoded;
    else {
      endRun();
      switched = match[0].slice(1, -1);
    }
  }
  const rest = raw.slice(last);
  // An escape character left over opens no sequence (a lone `\`, or a sequence a separator cut in two).
  const lone = rest.indexOf(e);
  if (lone !== -1) {
    const from = Math.max(0, lone - 10);
    note({
      kind: 'unreadable',
      escape: `${from > 0 ? '…' : ''}${rest.slice(from, lone + 11)}${lone + 11 < rest.length ? '…' : ''}`,
    });
  }
  run += rest;
  endRun();
  return out;
}
