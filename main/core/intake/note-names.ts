import { createHash } from 'node:crypto';

/** Most file systems (ext4, APFS, NTFS, tmpfs) take names of up to 255 bytes. */
export const NAME_MAX_BYTES = 255;

/** The longest start of `text` that is at most `bytes` bytes of UTF-8, never cutting a character. */
function utf8Prefix(text: string, bytes: number): string {
  let used = 0;
  let end = 0;
  for (const char of text) {
    const size = Buffer.byteLength(char);
    if (used + size > bytes) break;
    used += size;
    end += char.length;
  }
  return text.slice(0, end);
}

/**
 * `stem + tail` when it fits in a name, else the stem cut short with `~` and 8 hex digits of its SHA-256 before the
 * tail: a watched file named near the limit still gets its `NAME.problems.txt` (or `NAME (2).csv`), and two long
 * names with the same start get different ones.
 */
export function fittedName(stem: string, tail: string): string {
  if (Buffer.byteLength(stem + tail) <= NAME_MAX_BYTES) return stem + tail;
  const mark = `~${createHash('sha256').update(stem).digest('hex').slice(0, 8)}`;
  return utf8Prefix(stem, NAME_MAX_BYTES - Buffer.byteLength(mark + tail)) + mark + tail;
}
