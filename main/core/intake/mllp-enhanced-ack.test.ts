import { describe, expect, it } from 'vitest';
import { sendWithLibrary } from '../../../test/support/hl7-client.js';
import { writeRde011 } from '../importing/rde-writer.js';
import { uniqueOrder } from '../staging/testing/staging-fixtures.js';
import { buildAck, readMessageHeader } from './hl7-ack.js';
import { MLLP_SENDER, mllpIntakePerTest, stagedCount } from './testing/mllp-intake.js';

// A sender in HL7's enhanced acknowledgment mode fills MSH-15 (accept acknowledgment type): with MSH-16 (application
// acknowledgment type) empty or NE it waits for a commit acknowledgment, CA or CR, and answered AA it may wait on.

/** The message with MSH-15 and MSH-16 set (MSH-n is the n-th field, MSH-1 being the separator itself). */
function withAckTypes(text: string, accept: string, application: string, messageType?: string): string {
  const [msh, ...rest] = text.split('\r');
  const fields = msh!.split('|');
  while (fields.length < 16) fields.push('');
  fields[14] = accept;
  fields[15] = application;
  if (messageType) fields[8] = messageType;
  return [fields.join('|'), ...rest].join('\r');
}

const message = (controlId: string) =>
  writeRde011(uniqueOrder({}, 'ENH'), { controlId, timestamp: '20261203101500', ...MLLP_SENDER });

const start = mllpIntakePerTest();

describe('enhanced-mode senders', () => {
  it('get CA once the message is stored, CR when it cannot be read; MSH-16 filled gets the application ACK', async () => {
    const r = await start({ mode: 'hold' });
    const cases = [
      { id: 'ENH-1', accept: 'AL', application: 'NE', expected: 'CA' },
      { id: 'ENH-2', accept: 'AL', application: '', expected: 'CA' },
      { id: 'ENH-3', accept: 'er', application: 'ne', expected: 'CA' },
      { id: 'ENH-4', accept: 'AL', application: 'AL', expected: 'AA' },
      { id: 'ENH-5', accept: '', application: '', expected: 'AA' },
      // Not a value of HL7 table 0155: read as no enhanced mode at all.
      { id: 'ENH-6', accept: 'YES', application: '', expected: 'AA' },
    ];
    const acks = await sendWithLibrary(
      r.port,
      cases.map((c) => withAckTypes(message(c.id), c.accept, c.application)),
    );
    expect(acks.map((ack) => [ack.get('MSA.2'), ack.get('MSA.1')])).toEqual(cases.map((c) => [c.id, c.expected]));
    for (const ack of acks) expect(ack.get('MSH.9.1')).toBe('ACK');
    await r.intake.staged();
    expect(stagedCount(r)).toBe(cases.length);

    const [refused] = await sendWithLibrary(r.port, [withAckTypes(message('ENH-7'), 'AL', 'NE', 'ADT^A01^ADT_A01')]);
    expect([refused!.get('MSA.1'), refused!.get('MSA.2')]).toEqual(['CR', 'ENH-7']);
    expect(refused!.errors.map((e) => e.code)).toEqual(['200']);
    await r.intake.staged();
    expect(stagedCount(r)).toBe(cases.length);
  });

  it('keeps the ERR segments of a message a person must fix, under CA', () => {
    const header = readMessageHeader(withAckTypes(message('ENH-8'), 'AL', 'NE'));
    const ack = buildAck(header, { code: 'AE', errors: [{ hl7Code: '101', text: 'RXE-2 is missing' }] });
    const [, msa, err] = ack.split('\r');
    expect(msa).toBe('MSA|CA|ENH-8');
    expect(err).toMatch(/^ERR\|\|\|101\^Required field missing\^HL70357\|E\|/);
  });
});
