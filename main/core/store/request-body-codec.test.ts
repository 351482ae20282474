import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { toWireJson } from '../../../shared/wire-json.js';
import { sampleCreateWithClinic } from '../../../test/support/orders.js';
import { PACKED_BODY_FORMATS, PackedBodyError, packRequestBody, unpackRequestBody } from './request-body-codec.js';
import { HL7_BODY_DICTIONARY_1, JSON_BODY_DICTIONARY_1 } from './request-body-dictionaries.js';

/** The packed form of request bodies (migration 020): lossless, a format byte, and damage refused by name. */

const v1Body = toWireJson(sampleCreateWithClinic({ clinicOrderId: 'CO-1', surname: 'Ó Súilleabháin' }));
const hl7Body = readFileSync(new URL('../../../test/fixtures/import/rde-single.hl7', import.meta.url), 'utf8')
  .replace(/\r?\n/g, '\r')
  .trimEnd();

describe('packed request bodies', () => {
  it('read back as exactly the text packed: v1, v2 and HL7, accents, emoji, a BOM, CR line ends', () => {
    const texts: Array<[Parameters<typeof packRequestBody>[0], string]> = [
      ['v1', v1Body],
      ['v2', v1Body.replace('"title":"Ms"', '"title":3').replace('"1980-01-15"', '"1980-01-15T00:00:00Z"')],
      ['hl7', hl7Body],
      ['hl7', `\uFEFF${hl7Body}`],
      ['v1', v1Body.replace('Paracetamol', 'Paracétamol 💊 \u2028 "quoted" \\ back')],
    ];
    for (const [route, text] of texts) expect(unpackRequestBody(packRequestBody(route, text))).toBe(text);
  });

  it("uses the route's dictionary, which makes a v1 body several times smaller than deflate alone", () => {
    const packed = packRequestBody('v1', v1Body);
    expect(packed[0]).toBe(PACKED_BODY_FORMATS.jsonDictionary1);
    expect(packRequestBody('hl7', hl7Body)[0]).toBe(PACKED_BODY_FORMATS.hl7Dictionary1);
    const plain = deflateRawSync(v1Body, { level: 9 }).length;
    expect(packed.length).toBeLessThan(plain * 0.6);
    expect(packed.length).toBeLessThan(Buffer.byteLength(v1Body) / 3);
  });

  it('stores a body as it is when deflate would not make it smaller', () => {
    const tiny = '{}';
    const packed = packRequestBody('v1', tiny);
    expect(packed[0]).toBe(PACKED_BODY_FORMATS.stored);
    expect(unpackRequestBody(packed)).toBe(tiny);
  });

  it('refuses a damaged packed body with the order and the reason, never other text', () => {
    const packed = packRequestBody('v1', v1Body);
    const damaged = (change: (copy: Buffer) => Buffer) => () => unpackRequestBody(change(Buffer.from(packed)), 42);
    const flipped = (at: number) => (copy: Buffer) => {
      copy[at] = copy[at]! ^ 0x10;
      return copy;
    };
    expect(damaged(flipped(packed.length - 3))).toThrow(PackedBodyError);
    expect(damaged(flipped(packed.length - 3))).toThrow(
      /request body of order 42 \(orders\.request_body_packed\) cannot be read: (its checksum does not match|format 1 does not inflate|\d+ bytes where \d+ were packed)/,
    );
    expect(damaged(flipped(2))).toThrow(/order 42 .*its checksum does not match/);
    expect(damaged((copy) => copy.subarray(0, copy.length - 20))).toThrow(/order 42 .*cannot be read/);
    expect(damaged((copy) => ((copy[0] = 9), copy))).toThrow(/format 9 is not one this version knows/);
    expect(damaged((copy) => copy.subarray(0, 4))).toThrow(/4 bytes, shorter than any packed body/);
    // A length byte changed: the text would come out longer or shorter than was packed.
    expect(damaged((copy) => ((copy[5] = copy[5]! + 1), copy))).toThrow(/bytes where \d+ were packed|does not inflate/);
    // Stored as it is (format 0): a changed byte is caught by the checksum too.
    const stored = packRequestBody('v1', '{}');
    stored[stored.length - 1] = 0x5d;
    expect(() => unpackRequestBody(stored, 7)).toThrow(/order 7 .*its checksum does not match/);
  });

  it('never changes a shipped dictionary: rows packed with it must read for ever (a new one is a new format)', () => {
    const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
    expect(sha(JSON_BODY_DICTIONARY_1)).toBe('5eee11162f6a21b16b2df8611f4a6ca662fa7a8c36a031daefbcffe1878396a2');
    expect(sha(HL7_BODY_DICTIONARY_1)).toBe('d33b74a9f33d9572756484994aab43a04117728a665a9294f00f3d14a72f3367');
  });
});
