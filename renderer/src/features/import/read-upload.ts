import { detectTextEncoding } from '../../../../shared/encoding-sniff.js';
import { MAX_UPLOAD_CHARS } from '../../../../shared/staging-contract.js';

/**
 * A chosen file's bytes as text for a browser upload. The upload travels as text, so decoding happens here, by
 * the same rules the core uses for files on disk (shared/encoding-sniff.ts detectTextEncoding): a BOM, UTF-16/32
 * zero bytes, an HL7 file's MSH-18, valid UTF-8, else Windows-1252 (what Excel on a UK Windows machine writes);
 * text in an encoding Rx Batch does not read, or double-byte text nobody named, is refused with the core's
 * sentence. An admin's override wins.
 */

/**
 * The encodings an admin can choose. The double-byte ones are read only when chosen (or, in HL7, named by MSH-18):
 * the core refuses such a file it was not told about, naming the encoding to choose (shared/encoding-sniff.ts).
 */
export const UPLOAD_ENCODINGS = [
  'utf-8',
  'windows-1252',
  'iso-8859-1',
  'utf-16le',
  'utf-16be',
  'shift_jis',
  'euc-jp',
  'gb18030',
  'big5',
  'euc-kr',
] as const;

export interface DecodedUpload {
  text: string;
  encoding: string;
  /** False when the admin chose the encoding. */
  detected: boolean;
  /** The chosen encoding could not read some bytes (they became U+FFFD). */
  unreadable?: boolean;
  /** Not read at all: why, in the sentence the core uses for a file on disk (`text` is empty). */
  refused?: string;
}

function isUtf8(bytes: Uint8Array): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** The text as `encoding` reads it (TextDecoder drops a BOM of that encoding); unreadable bytes become U+FFFD. */
function decodeAs(bytes: Uint8Array, encoding: string, detected: boolean): DecodedUpload {
  try {
    return { text: new TextDecoder(encoding, { fatal: true }).decode(bytes), encoding, detected };
  } catch {
    return { text: new TextDecoder(encoding).decode(bytes), encoding, detected, unreadable: true };
  }
}

export async function decodeUpload(bytes: Uint8Array, override?: string): Promise<DecodedUpload> {
  if (override) return decodeAs(bytes, override, false);
  const verdict = await detectTextEncoding(bytes, { whole: true, isUtf8: () => isUtf8(bytes) });
  if ('refused' in verdict)
    return { text: '', encoding: verdict.encoding, detected: true, refused: verdict.refused.text };
  return decodeAs(bytes, verdict.encoding, true);
}

/** Whether decoded text fits in one upload (the transport carries it in one message). */
export function fitsUpload(text: string): boolean {
  return text.length <= MAX_UPLOAD_CHARS;
}
