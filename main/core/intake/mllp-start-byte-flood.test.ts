import { describe, expect, it, vi } from 'vitest';
import { RawMllpSocket, frame } from '../../../test/support/hl7-client.js';
import { writeRde011 } from '../importing/rde-writer.js';
import { uniqueOrder } from '../staging/testing/staging-fixtures.js';
import { MLLP_SENDER, mllpIntakePerTest, type RunningIntake } from './testing/mllp-intake.js';

/**
 * docs/security.md, finding 40: a start byte inside an unfinished frame drops that frame, and each dropped frame was
 * logged and audited, one by one, on the core's loop. A run of start bytes is a dropped frame per byte: 1 MB of
 * 0x0B from one connection (any local user can reach the app's intake) wrote 195,071 log lines and audit entries in
 * 63 s, during which the core answered nothing. The real listener and intake over loopback, real SQLite.
 */

const start = mllpIntakePerTest();

const abandonedLines = (r: RunningIntake) => r.logs.filter((line) => line.includes('unfinished frame')).length;

describe('MLLP: a run of start bytes', () => {
  it('is one refusal for the connection, audited once, and a message after it is still answered', async () => {
    const r = await start({ mode: 'hold' });
    const socket = await RawMllpSocket.open(r.port);
    const message = writeRde011(uniqueOrder({}, 'FLOOD'), {
      controlId: 'FLOOD-1',
      timestamp: '20261202101500',
      ...MLLP_SENDER,
    });
    socket.write(Buffer.concat([Buffer.alloc(20_000, 0x0b), Buffer.from('MSH|half'), frame(message)]));
    const [ack] = await socket.waitFor(1);
    expect([ack?.get('MSA.1'), ack?.get('MSA.2')]).toEqual(['AA', 'FLOOD-1']);
    expect(r.listener.stats.malformedFrames).toBe(20_000);
    expect(r.fixture.store.audit.search({ action: 'intake.frame.refused' })).toHaveLength(1);
    expect(abandonedLines(r)).toBe(1);

    // When it closes, one line says how many were dropped in all.
    socket.close();
    const summed = () => r.logs.filter((line) => line.includes('"frames":20000')).length;
    await vi.waitFor(() => expect(summed()).toBe(1), { timeout: 10_000, interval: 20 });
    expect(r.fixture.store.audit.search({ action: 'intake.frame.refused' })).toHaveLength(1);
  });
});
