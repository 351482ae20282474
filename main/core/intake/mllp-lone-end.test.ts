import { describe, expect, it } from 'vitest';
import { RawMllpSocket, frame } from '../../../test/support/hl7-client.js';
import { writeRde011 } from '../importing/rde-writer.js';
import { uniqueOrder } from '../staging/testing/staging-fixtures.js';
import { MLLP_SENDER, mllpIntakePerTest, stagedCount } from './testing/mllp-intake.js';

// Some senders end each MLLP frame with 0x1C alone, without the 0x0D after it. Such a sender waits for each ACK
// before it sends the next message, so before, it got none: its frame stayed open until the idle timeout closed it.

const message = (controlId: string) =>
  writeRde011(uniqueOrder({}, 'LONE'), { controlId, timestamp: '20261202101500', ...MLLP_SENDER });
const loneEnded = (text: string) => Buffer.concat([Buffer.of(0x0b), Buffer.from(text, 'utf8'), Buffer.of(0x1c)]);

const start = mllpIntakePerTest();

describe('MLLP frames ended by 0x1C alone', () => {
  it('answers a sender that waits for each ACK, one message at a time', async () => {
    const r = await start({ mode: 'hold' });
    const socket = await RawMllpSocket.open(r.port);
    for (const [i, id] of ['LONE-1', 'LONE-2', 'LONE-3'].entries()) {
      socket.write(loneEnded(message(id)));
      const acks = await socket.waitFor(i + 1, 5000);
      expect([acks[i]!.get('MSA.1'), acks[i]!.get('MSA.2')]).toEqual(['AA', id]);
    }
    socket.close();
    await r.intake.staged();
    expect(stagedCount(r)).toBe(3);
    expect(r.listener.stats.malformedFrames).toBe(0);
  });

  it('reads frames sent back to back, and a 0x0D that comes late is not a message', async () => {
    const r = await start({ mode: 'hold' });
    const socket = await RawMllpSocket.open(r.port);
    socket.write(Buffer.concat([loneEnded(message('BACK-1')), loneEnded(message('BACK-2'))]));
    const acks = await socket.waitFor(2, 5000);
    expect(acks.map((ack) => ack.get('MSA.2'))).toEqual(['BACK-1', 'BACK-2']);
    // The 0x0D of a frame already read as ended, then a frame ended as MLLP says.
    socket.write(Buffer.of(0x0d));
    socket.write(frame(message('BACK-3')));
    const more = await socket.waitFor(3, 5000);
    expect(more.map((ack) => [ack.get('MSA.1'), ack.get('MSA.2')])).toEqual([
      ['AA', 'BACK-1'],
      ['AA', 'BACK-2'],
      ['AA', 'BACK-3'],
    ]);
    socket.close();
    await r.intake.staged();
    expect(stagedCount(r)).toBe(3);
  });
});
