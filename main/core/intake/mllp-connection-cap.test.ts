import { afterEach, describe, expect, it, vi } from 'vitest';
import { RawMllpSocket, frame } from '../../../test/support/hl7-client.js';
import { writeRde011 } from '../importing/rde-writer.js';
import { uniqueOrder } from '../staging/testing/staging-fixtures.js';
import { MAX_MLLP_CONNECTIONS } from './mllp-listener.js';
import { startMllpIntake, stopMllpIntake, type RunningIntake } from './testing/mllp-intake.js';

/**
 * docs/security.md, finding 36: each connection may hold an unfinished frame of up to the message limit (1 MiB) for
 * as long as it sends a byte within the idle timeout, and the listener took every connection it was offered: 400
 * of them held 485 MB of the core's memory, and a local user (the app's intake is on 127.0.0.1) or an allowed peer
 * could open thousands. The real listener and intake over loopback.
 */

let running: RunningIntake | undefined;
const sockets: RawMllpSocket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.close();
  if (running) await stopMllpIntake(running);
  running = undefined;
});

let seq = 0;
const message = () =>
  writeRde011(uniqueOrder({}, 'CAP'), {
    controlId: `CAP-${process.pid}-${++seq}`,
    timestamp: '20261202101500',
    sendingApplication: 'EPR-7',
    sendingFacility: 'CLINIC-H',
  });

/** Opens `count` connections, each holding an unfinished frame, as a memory hog would. */
async function holdOpen(port: number, count: number): Promise<RawMllpSocket[]> {
  const opened: RawMllpSocket[] = [];
  for (let i = 0; i < count; i += 1) {
    const socket = await RawMllpSocket.open(port);
    sockets.push(socket);
    socket.write(Buffer.concat([Buffer.of(0x0b), Buffer.from('MSH|^~\\&|', 'latin1'), Buffer.alloc(4096, 0x41)]));
    opened.push(socket);
  }
  return opened;
}

const refusals = (r: RunningIntake) =>
  r.fixture.store.audit
    .search({})
    .filter((entry) => entry.action === 'intake.peer.refused')
    .map((entry) => entry.details);

describe('MLLP: how many connections at once', () => {
  it('closes connections beyond the cap unread, logs and audits that once, and takes one again once another has gone', async () => {
    const r = (running = await startMllpIntake({ mode: 'hold' }, { maxConnections: 4 }));
    const held = await holdOpen(r.port, 3);
    const fourth = await RawMllpSocket.open(r.port);
    sockets.push(fourth);
    fourth.write(frame(message()));
    expect((await fourth.waitFor(1))[0]?.get('MSA.1')).toBe('AA');

    // One more, and another: each closed unanswered, said once while the listener stays full.
    for (let i = 0; i < 2; i += 1) {
      const beyond = await RawMllpSocket.open(r.port);
      sockets.push(beyond);
      beyond.write(frame(message()));
      await beyond.waitFor(1);
      expect(beyond.acks).toEqual([]);
      expect(beyond.closed).toBe(true);
    }
    expect(r.listener.stats.refusedPeers).toBe(2);
    expect(r.logs.filter((line) => line.startsWith('intake: refused a connection: already 4 open'))).toHaveLength(1);
    expect(refusals(r)).toEqual([expect.objectContaining({ outcome: 'busy' })]);
    // A full listener refuses no peer in particular: no refusal reason of a peer's.
    expect(refusals(r)[0]).not.toHaveProperty('reason');

    held[0]!.close();
    await vi.waitFor(() => expect(r.listener.stats.connections).toBe(3), { timeout: 10_000, interval: 20 });
    const again = await RawMllpSocket.open(r.port);
    sockets.push(again);
    again.write(frame(message()));
    expect((await again.waitFor(1))[0]?.get('MSA.1')).toBe('AA');
  });

  it(`takes at most ${MAX_MLLP_CONNECTIONS} by default`, async () => {
    const r = (running = await startMllpIntake({ mode: 'hold' }));
    await holdOpen(r.port, MAX_MLLP_CONNECTIONS - 1);
    const last = await RawMllpSocket.open(r.port);
    sockets.push(last);
    last.write(frame(message()));
    expect((await last.waitFor(1))[0]?.get('MSA.1')).toBe('AA');

    const beyond = await RawMllpSocket.open(r.port);
    sockets.push(beyond);
    beyond.write(frame(message()));
    await beyond.waitFor(1);
    expect(beyond.acks).toEqual([]);
    expect(beyond.closed).toBe(true);
  });
});
