import { problem } from './problems.js';
import type { Location } from './problems.js';
import type { Problem } from '../model/imported-order.js';

/**
 * Characters that look like a space, or like nothing, but are not U+0020: Unicode's other space separators (the
 * no-break space a web form or a word processor puts in `LS1 4AP`, figure and narrow no-break spaces, em and en
 * spaces…) and the invisible zero-width space, word joiner and byte order mark. Left in, `LS1 4AP` with a no-break
 * space and with a plain one are two values (rows that "disagree" while looking the same), and the odd one would be
 * sent to the service. Spaces become a plain space; the zero-width ones are left out. The zero-width (non-)joiners
 * U+200C/U+200D are not touched: they change how some scripts and emoji are written.
 *
 * Files pay nothing for this unless they hold such a character: importers test each decoded chunk once with
 * `holdsUnusualSpace` and only then read values through `plainSpaces`.
 */

// One class each: matching them is the point (no-irregular-whitespace would flag the characters themselves).
const UNUSUAL_SPACE = /[\u00a0\u1680\u2000-\u200b\u202f\u205f\u2060\u3000\ufeff]/;
const UNUSUAL_SPACES = /[\u00a0\u1680\u2000-\u200b\u202f\u205f\u2060\u3000\ufeff]/g;
const ZERO_WIDTH = new Set([0x200b, 0x2060, 0xfeff]);
/** All but U+00A0 are beyond Latin-1. */
const BEYOND_LATIN1 = /[\u1680\u2000-\u200b\u202f\u205f\u2060\u3000\ufeff]/;

/**
 * Whether a decoded chunk holds any of them. Split in two because V8 keeps text with no character beyond Latin-1 (an
 * ASCII file: most) as one byte per character, where a search for U+00A0 is a fast byte scan and a regular expression
 * of characters beyond Latin-1 fails at once; one expression for all of them walked every character (35-60 ms for
 * the 34 MB bench file, against 3-5 ms). Two-byte text (a curly quote anywhere in the chunk) costs ~40 ms for 34 MB.
 */
export function holdsUnusualSpace(chunk: string): boolean {
  return chunk.includes('\u00a0') || BEYOND_LATIN1.test(chunk);
}

const NAMES: Record<number, string> = {
  0x00a0: 'no-break space',
  0x2007: 'figure space',
  0x202f: 'narrow no-break space',
  0x200b: 'zero-width space',
  0x2060: 'word joiner',
  0xfeff: 'byte order mark',
  0x3000: 'ideographic space',
};

/** `text` with unusual spaces as U+0020 and zero-width characters left out (the same string when it has none). */
export function plainSpaces(text: string): string {
  if (!UNUSUAL_SPACE.test(text)) return text;
  return text.replace(UNUSUAL_SPACES, (c) => (ZERO_WIDTH.has(c.charCodeAt(0)) ? '' : ' '));
}

const codePoint = (code: number) => `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;

/** What was changed in a file, said once: where first, and which characters. */
export class UnusualSpaces {
  private first: Location | undefined;
  private readonly found = new Set<number>();

  /** `before` read as `after`: noted when what is read (trimmed) differs. */
  note(before: string, after: string, where: Location): void {
    if (before.trim() === after.trim()) return;
    this.first ??= where;
    for (const match of before.matchAll(UNUSUAL_SPACES)) this.found.add(match[0].charCodeAt(0));
  }

  /** `text` read through `plainSpaces`, noting a change at `where`. */
  read(text: string, where: Location): string {
    const plain = plainSpaces(text);
    if (plain !== text) this.note(text, plain, where);
    return plain;
  }

  /** The one file warning, when anything was changed. */
  problem(file: string): Problem | undefined {
    const first = this.first;
    if (!first) return undefined;
    const place = first.row !== undefined ? `row ${first.row}` : `message ${first.message}`;
    const listed = [...this.found]
      .sort((a, b) => a - b)
      .map((code) => `${codePoint(code)} (${NAMES[code] ?? 'a space'})`)
      .join(', ');
    return problem(
      'warning',
      file,
      first,
      'text.unusualSpaces',
      `Values from ${place} on hold characters that look like spaces or nothing but are not plain spaces: ${listed}. They were read as plain spaces, the zero-width ones left out, so that values that look the same are the same.`,
    );
  }
}
