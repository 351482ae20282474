import { MAX_UPLOAD_CHARS } from '../../../../shared/staging-contract.js';

/**
 * A chosen file's bytes as text for a browser upload. The upload travels as text, so decoding happens here, the
 * way the core decodes files on disk: a BOM decides; else valid UTF-8 is UTF-8; else Windows-1252 (what Excel on
 * a UK Windows machine writes). An admin's override wins.
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
}

function bomEncoding(bytes: Uint8Array): { encoding: string; skip: number } | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { encoding: 'utf-8', skip: 3 };
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { encoding: 'utf-16le', skip: 2 };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { encoding: 'utf-16be', skip: 2 };
  return undefined;
}

export function decodeUpload(bytes: Uint8Array, override?: string): DecodedUpload {
  const bom = bomEncoding(bytes);
  if (override) {
    const body = bytes.subarray(bom?.encoding === override ? bom.skip : 0);
    try {
      return { text: new TextDecoder(override, { fatal: true }).decode(body), encoding: override, detected: false };
    } catch {
      return { text: new TextDecoder(override).decode(body), encoding: override, detected: false, unreadable: true };
    }
  }
  if (bom)
    return {
      text: new TextDecoder(bom.encoding).decode(bytes.subarray(bom.skip)),
      encoding: bom.encoding,
      detected: true,
    };
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes), encoding: 'utf-8', detected: true };
  } catch {
    return { text: new TextDecoder('windows-1252').decode(bytes), encoding: 'windows-1252', detected: true };
  }
}

/** Whether decoded text fits in one upload (the transport carries it in one message). */
export function fitsUpload(text: string): boolean {
  return text.length <= MAX_UPLOAD_CHARS;
}
