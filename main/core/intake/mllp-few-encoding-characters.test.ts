import { describe, expect, it } from 'vitest';
import { parseAck, sendWithLibrary } from '../../../test/support/hl7-client.js';
import { writeRde011 } from '../importing/rde-writer.js';
import { parseHl7Message } from '../model/hl7-adapter.js';
import { uniqueOrder } from '../staging/testing/staging-fixtures.js';
import { buildAck, readMessageHeader } from './hl7-ack.js';
import { MLLP_SENDER, mllpIntakePerTest, stagedCount } from './testing/mllp-intake.js';

// A sender whose MSH-2 gives fewer than four encoding characters (`^~\`, hapi-hl7v2's `^~}`, `^~`) is read and
// answered in its own separators: MSH-2 mirrored, its text escaped only with characters it has.

const start = mllpIntakePerTest();

/** An RDE^O11 of the intake's sender with MSH-2 as given; its values hold no backslash and no `&`. */
function message(controlId: string, msh2: string): string {
  const text = writeRde011(uniqueOrder({}, 'FEW'), { controlId, timestamp: '20261203101500', ...MLLP_SENDER });
  expect(text.split('\r').slice(1).join('\r')).not.toMatch(/[\\&]/);
  return text.replace('MSH|^~\\&|', `MSH|${msh2}|`);
}

/** MSH-2 of an ACK as written. */
const msh2Of = (ack: string) => ack.split('\r')[0]!.split('|')[1];

describe('MLLP intake of a sender with fewer than four encoding characters', () => {
  it('MSH|^~\\|: answered AA in its own three characters, read by the library, and staged', async () => {
    const r = await start({ mode: 'hold' });
    const [ack] = await sendWithLibrary(r.port, [message('FEW-1', '^~\\')]);
    expect(msh2Of(ack!.text)).toBe('^~\\');
    expect([ack!.get('MSA.1'), ack!.get('MSA.2')]).toEqual(['AA', 'FEW-1']);
    expect([ack!.get('MSH.3'), ack!.get('MSH.5'), ack!.get('MSH.6')]).toEqual(['CLOUDRX', 'EPR-7', 'CLINIC-H']);
    expect([ack!.get('MSH.9.1'), ack!.get('MSH.9.2'), ack!.get('MSH.9.3')]).toEqual(['ACK', 'O11', 'ACK']);
    expect(ack!.errors).toEqual([]);
    await r.intake.staged();
    expect(stagedCount(r)).toBe(1);
  });

  it("MSH|^~}|: a refusal's text is escaped with the sender's } and read back whole by the library", async () => {
    const r = await start({ mode: 'hold' });
    const adt = message('FEW-2', '^~}').replace('RDE^O11^RDE_O11', 'ADT^A01^ADT_A01');
    const [ack] = await sendWithLibrary(r.port, [adt]);
    expect(msh2Of(ack!.text)).toBe('^~}');
    expect([ack!.get('MSA.1'), ack!.get('MSA.2')]).toEqual(['AR', 'FEW-2']);
    expect(ack!.errors.map((e) => e.code)).toEqual(['200']);
    expect(ack!.errors[0]!.text).toBe(
      'Message type ADT^A01 is not accepted; only RDE^O11, RDE^O01, OMP^O09, ORM^O01 carry orders.',
    );
    expect(ack!.text).toContain('ADT}S}A01');
    expect(ack!.text).not.toContain('\\S\\');
    await r.intake.staged();
    expect(stagedCount(r)).toBe(0);
  });

  it('MSH|^~\\|: & is text to the sender, so it is not escaped; its separators and backslash are', () => {
    const header = readMessageHeader(message('FEW-3', '^~\\'));
    const ack = buildAck(header, { code: 'AE', errors: [{ hl7Code: '207', text: 'a|b^c~d\\e&f' }] });
    expect(ack.split('\r')[2]).toBe('ERR|||207^Application internal error^HL70357|E||||a\\F\\b\\S\\c\\R\\d\\E\\e&f');
    expect(parseAck(ack).errors).toEqual([{ code: '207', text: 'a|b^c~d\\e&f', location: '' }]);
  });

  it('MSH|^~|: with no escape character its separators in a text become spaces, and the ACK keeps its shape', () => {
    const header = readMessageHeader(message('FEW-4', '^~'));
    expect(header).toMatchObject({ encodingCharacters: '^~', controlId: 'FEW-4', sender: 'EPR-7^CLINIC-H' });
    const ack = buildAck(header, {
      code: 'AE',
      errors: [{ hl7Code: '101', text: 'RXE-2 is missing: a|b^c~d\\e&f', location: 'RXE^1^2' }],
    });
    const segments = ack.split('\r').filter(Boolean);
    expect(msh2Of(ack)).toBe('^~');
    expect(segments[1]).toBe('MSA|AE|FEW-4');
    expect(segments[2]).toBe('ERR||RXE^1^2|101^Required field missing^HL70357|E||||RXE-2 is missing: a b c d\\e&f');
    // Read back as the sender reads it (MSH-2 `^~`): one ERR, its text and location where they belong.
    const read = parseHl7Message(segments);
    expect(read.delimiters).toMatchObject({ escape: '', subcomponent: '' });
    const err = read.first('ERR')!;
    expect([err.value(2, 1), err.value(2, 3), err.value(3, 1), err.value(8)]).toEqual([
      'RXE',
      '2',
      '101',
      'RXE-2 is missing: a b c d\\e&f',
    ]);
  });
});
