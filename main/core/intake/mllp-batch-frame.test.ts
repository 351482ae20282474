import { describe, expect, it } from 'vitest';
import { RawMllpSocket, frame } from '../../../test/support/hl7-client.js';
import { writeRde011 } from '../importing/rde-writer.js';
import { uniqueOrder } from '../staging/testing/staging-fixtures.js';
import { MLLP_SENDER, mllpIntakePerTest, stagedCount } from './testing/mllp-intake.js';

// A clinic system set up to send its batch file over MLLP puts the whole batch (FHS/BHS … BTS/FTS) in one frame. The
// intake takes one message per frame; before, it answered that this "is not an HL7 v2 message".

const message = (controlId: string) =>
  writeRde011(uniqueOrder({}, 'BATCH'), { controlId, timestamp: '20261202101500', ...MLLP_SENDER });

const start = mllpIntakePerTest();

describe('an HL7 batch in one MLLP frame', () => {
  it('is refused (AR) as a batch, saying how to send it, and nothing of it is staged', async () => {
    const r = await start({ mode: 'send' });
    const socket = await RawMllpSocket.open(r.port);
    const batch = `BHS|^~\\&|EPR-7|CLINIC-H|||20261202101500||||B-1\r${message('B-1')}\r${message('B-2')}\rBTS|2\r`;
    socket.write(frame(batch));
    socket.write(frame(`\ufeffFHS|^~\\&|EPR-7|CLINIC-H\r${batch}FTS|1\r`));
    const acks = await socket.waitFor(2, 5000);
    for (const [ack, segment, trailer] of [
      [acks[0]!, 'BHS', 'BTS'],
      [acks[1]!, 'FHS', 'FTS'],
    ] as const) {
      expect(ack.get('MSA.1')).toBe('AR');
      expect(ack.errors).toHaveLength(1);
      expect(ack.errors[0]!.code).toBe('100');
      expect(ack.errors[0]!.text).toContain(`HL7 batch (${segment} … ${trailer})`);
      expect(ack.errors[0]!.text).toContain('one message per frame');
      expect(ack.errors[0]!.text).toContain('watched folder');
    }
    socket.close();
    await r.intake.staged();
    expect(stagedCount(r)).toBe(0);
    expect((r.fixture.store.db.prepare('SELECT count(*) AS n FROM orders').get() as { n: number }).n).toBe(0);
  });
});
