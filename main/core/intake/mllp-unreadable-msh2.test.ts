import { describe, expect, it } from 'vitest';
import { RawMllpSocket, frame, sendWithLibrary } from '../../../test/support/hl7-client.js';
import { writeRde011 } from '../importing/rde-writer.js';
import { uniqueOrder } from '../staging/testing/staging-fixtures.js';
import { MLLP_SENDER, mllpIntakePerTest, stagedCount } from './testing/mllp-intake.js';

// A message that opens with MSH but whose MSH-2 gives no separators to read by (public samples have `^~\\&`, a
// backslash doubled by source code or JSON, and `^~&`, one dropped): refused AR saying why, at MSH-2, with its
// MSH-10 mirrored so the sender can match the refusal to the message; it was "does not start with an MSH segment"
// with an empty MSA-2.

const start = mllpIntakePerTest();

function message(controlId: string, msh2: string): string {
  const text = writeRde011(uniqueOrder({}, 'MSH2'), { controlId, timestamp: '20261206101500', ...MLLP_SENDER });
  return text.replace('MSH|^~\\&|', `MSH|${msh2}|`);
}

describe('MLLP intake of a message whose MSH-2 cannot be read', () => {
  it.each([
    ['^~\\\\&', 'UNREAD-1', 'with its backslash doubled'],
    ['^~&', 'UNREAD-2', 'its escape character (the third, usually \\) is missing'],
    ['^^\\&', 'UNREAD-3', 'MSH-1/MSH-2 must give five different separator characters'],
  ])('MSH|%s| is refused AR at MSH-2, saying why, its MSH-10 mirrored', async (msh2, controlId, said) => {
    const r = await start({ mode: 'hold' });
    const [ack] = await sendWithLibrary(r.port, [message(controlId, msh2)]);
    expect(ack!.text.split('\r')[0]!.split('|')[1]).toBe('^~\\&');
    expect([ack!.get('MSA.1'), ack!.get('MSA.2')]).toEqual(['AR', controlId]);
    // The sender's own applications mirrored, as for any other message.
    expect([ack!.get('MSH.5'), ack!.get('MSH.6')]).toEqual([
      MLLP_SENDER.sendingApplication,
      MLLP_SENDER.sendingFacility,
    ]);
    expect(ack!.errors).toHaveLength(1);
    expect(ack!.errors[0]).toMatchObject({ code: '102', location: 'MSH^1^2' });
    expect(ack!.errors[0]!.text).toContain(`'${msh2}'`);
    expect(ack!.errors[0]!.text).toContain(said);
    await r.intake.staged();
    expect(stagedCount(r)).toBe(0);
  });

  it('text that is no HL7 at all is still refused as not starting with an MSH segment', async () => {
    const r = await start({ mode: 'hold' });
    // The library sends nothing that does not begin with MSH: a raw socket does.
    const socket = await RawMllpSocket.open(r.port);
    socket.write(frame('PID|1||123||Example^Alex\r'));
    const [ack] = await socket.waitFor(1);
    socket.close();
    expect([ack!.get('MSA.1'), ack!.get('MSA.2')]).toEqual(['AR', '']);
    expect(ack!.errors[0]).toMatchObject({
      code: '100',
      text: 'This is not an HL7 v2 message: it does not start with an MSH segment.',
    });
  });
});
