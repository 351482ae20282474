import { isUtf8 } from 'node:buffer';

/**
 * An answer's body as text. RFC 8259 says JSON is UTF-8, and most answers are, but a .NET service writing with
 * `Encoding.Unicode` sends UTF-16 (with a byte order mark, `charset=utf-16`), and an older one Latin-1 with its
 * charset. Read as UTF-8, a UTF-16 create answer was "not JSON" and its order in doubt; a Latin-1 "Zoë" in an error
 * came out "Zo�". What decides:
 * - a byte order mark (UTF-8, UTF-16LE, UTF-16BE), whatever the header says (as browsers read one: WHATWG Encoding),
 *   and dropped (.NET's default UTF8Encoding writes one: kept, every answer was "not JSON");
 * - else UTF-16 by its first two bytes (utf16Order), or by a UTF-16 charset in Content-Type ("utf-16" alone: LE);
 * - else any other charset Node reads, only when the bytes are not UTF-8: a header saying Latin-1 over UTF-8 bytes is a
 *   common slip, and so read the text stays as it was;
 * - else UTF-8, as before (a bad byte as U+FFFD). An unknown charset is read as UTF-8 too, as before.
 */
export function answerText(body: Buffer, contentType: string | undefined): string {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return body.toString('utf8', 3);
  if (body[0] === 0xff && body[1] === 0xfe) return new TextDecoder('utf-16le').decode(body.subarray(2));
  if (body[0] === 0xfe && body[1] === 0xff) return new TextDecoder('utf-16be').decode(body.subarray(2));
  const sniffed = utf16Order(body);
  if (sniffed) return new TextDecoder(sniffed).decode(body);
  const label = charsetOf(contentType);
  if (label === 'utf-16') return new TextDecoder('utf-16le').decode(body);
  // The usual answer: no decoder to make.
  if (label === undefined || label === 'utf-8' || label === 'utf8') return body.toString('utf8');
  const decoder = decoderFor(label);
  if (decoder?.encoding === 'utf-16le' || decoder?.encoding === 'utf-16be') return decoder.decode(body);
  if (decoder && decoder.encoding !== 'utf-8' && !isUtf8(body)) return decoder.decode(body);
  return body.toString('utf8');
}

/**
 * UTF-16 without a mark, by its first two bytes (RFC 4627 §3): a JSON text starts with an ASCII character, so in UTF-16
 * one of them is zero, which no UTF-8 text starts with. Whatever the header says: a .NET service's Encoding.Unicode
 * under "charset=utf-8", or none.
 */
function utf16Order(body: Buffer): 'utf-16le' | 'utf-16be' | undefined {
  if (body.length < 2 || (body[0] === 0) === (body[1] === 0)) return undefined;
  return body[0] === 0 ? 'utf-16be' : 'utf-16le';
}

/** The charset parameter of a Content-Type, lower-cased; undefined when there is none. */
function charsetOf(contentType: string | undefined): string | undefined {
  const match = /;\s*charset\s*=\s*(?:"([^"]{0,40})"|([^;\s]{1,40}))/i.exec(contentType ?? '');
  const label = (match?.[1] ?? match?.[2])?.trim().toLowerCase();
  return label || undefined;
}

function decoderFor(label: string): TextDecoder | undefined {
  try {
    return new TextDecoder(label);
  } catch {
    return undefined;
  }
}
