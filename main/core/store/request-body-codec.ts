import { constants, crc32, deflateRawSync, inflateRawSync } from 'node:zlib';
import type { OrderRoute } from './order-state.js';
import { HL7_BODY_DICTIONARY_1, JSON_BODY_DICTIONARY_1 } from './request-body-dictionaries.js';

/**
 * The packed form of a finished order's request body (`orders.request_body_packed`, migration 020): lossless, so
 * every reader gets back the exact text that was sent, byte for byte.
 *
 *   byte 0      format: 0 the UTF-8 text as it is (when deflate would not make it smaller), 1 deflateRaw with
 *               JSON_BODY_DICTIONARY_1 (v1 and v2 bodies), 2 deflateRaw with HL7_BODY_DICTIONARY_1 (HL7)
 *   bytes 1-4   CRC-32 of the UTF-8 text, big-endian
 *   then        the text's length in UTF-8 bytes (unsigned LEB128), then the payload
 *
 * A format, once written, is read for ever: a new dictionary is a new number. The checksum and length make a damaged
 * row fail loudly (`PackedBodyError`) instead of reading as some other text.
 */

export const PACKED_BODY_FORMATS = {
  stored: 0,
  jsonDictionary1: 1,
  hl7Dictionary1: 2,
} as const;

const DICTIONARIES: ReadonlyMap<number, Buffer> = new Map([
  [PACKED_BODY_FORMATS.jsonDictionary1, Buffer.from(JSON_BODY_DICTIONARY_1, 'utf8')],
  [PACKED_BODY_FORMATS.hl7Dictionary1, Buffer.from(HL7_BODY_DICTIONARY_1, 'utf8')],
]);

/** What `orders.request_body` holds while the packed column has the body (the column may not be empty). */
export const PACKED_BODY_MARK = '*';

/** Bodies are at most a few MB (an HL7 message of many items); a length past this is damage, not a body. */
const MAX_BODY_BYTES = 64 * 1024 * 1024;

export class PackedBodyError extends Error {
  constructor(
    readonly orderId: number | undefined,
    readonly reason: string,
  ) {
    super(
      `the stored request body${orderId === undefined ? '' : ` of order ${orderId}`} (orders.request_body_packed) ` +
        `cannot be read: ${reason}; the store file is damaged there (restore it from a backup)`,
    );
    this.name = 'PackedBodyError';
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function varint(value: number): Buffer {
  const bytes: number[] = [];
  let rest = value;
  do {
    const low = rest % 128;
    rest = Math.floor(rest / 128);
    bytes.push(rest > 0 ? low | 128 : low);
  } while (rest > 0);
  return Buffer.from(bytes);
}

function readVarint(blob: Uint8Array, at: number): { value: number; next: number } | undefined {
  let value = 0;
  let scale = 1;
  for (let index = at; index < blob.length && index < at + 5; index += 1) {
    const byte = blob[index]!;
    value += (byte & 127) * scale;
    if ((byte & 128) === 0) return { value, next: index + 1 };
    scale *= 128;
  }
  return undefined;
}

function header(format: number, text: Buffer): Buffer {
  const out = Buffer.alloc(5);
  out[0] = format;
  out.writeUInt32BE(crc32(text), 1);
  return Buffer.concat([out, varint(text.length)]);
}

/**
 * The packed form of `text` for its route: deflated with the route's dictionary, or stored as it is when that is not
 * smaller. Reads its own result back before returning it, so a body is never replaced by something that differs.
 */
export function packRequestBody(route: OrderRoute, text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  const format = route === 'hl7' ? PACKED_BODY_FORMATS.hl7Dictionary1 : PACKED_BODY_FORMATS.jsonDictionary1;
  const deflated = deflateRawSync(bytes, {
    level: constants.Z_BEST_COMPRESSION,
    dictionary: DICTIONARIES.get(format)!,
  });
  const packed =
    deflated.length < bytes.length
      ? Buffer.concat([header(format, bytes), deflated])
      : Buffer.concat([header(PACKED_BODY_FORMATS.stored, bytes), bytes]);
  if (unpackRequestBody(packed) !== text) {
    throw new Error('a packed request body did not read back as the same text (nothing was changed)');
  }
  return packed;
}

/** The exact text a packed body was made from; `PackedBodyError` (naming `orderId`) when the bytes are damaged. */
export function unpackRequestBody(blob: Uint8Array, orderId?: number): string {
  const fail = (reason: string): never => {
    throw new PackedBodyError(orderId, reason);
  };
  if (blob.length < 6) fail(`${blob.length} bytes, shorter than any packed body`);
  const format = blob[0]!;
  const length = readVarint(blob, 5) ?? fail('its length is cut off');
  if (length.value > MAX_BODY_BYTES) fail(`it claims ${length.value} bytes`);
  const payload = blob.subarray(length.next);
  let bytes: Uint8Array;
  if (format === PACKED_BODY_FORMATS.stored) {
    bytes = payload;
  } else {
    const dictionary = DICTIONARIES.get(format) ?? fail(`format ${format} is not one this version knows`);
    try {
      bytes = inflateRawSync(payload, { dictionary, maxOutputLength: Math.max(1, length.value) });
    } catch (error) {
      return fail(`format ${format} does not inflate (${(error as Error).message})`);
    }
  }
  if (bytes.length !== length.value) fail(`${bytes.length} bytes where ${length.value} were packed`);
  const expected = Buffer.from(blob.buffer, blob.byteOffset + 1, 4).readUInt32BE(0);
  if (crc32(bytes) !== expected) fail('its checksum does not match');
  try {
    return utf8.decode(bytes);
  } catch {
    return fail('it is not UTF-8 text');
  }
}
