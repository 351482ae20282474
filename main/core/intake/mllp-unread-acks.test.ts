import { connect, Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { frame } from '../../../test/support/hl7-client.js';
import { mllpIntakePerTest, type RunningIntake } from './testing/mllp-intake.js';

/**
 * docs/security.md, finding 35: a peer that sends and never reads its ACKs. A resend is answered from the stored ACK
 * without being stored again, and a 74-byte message the intake refuses is answered with a 2.3 KB ACK: the listener read
 * on and queued every ACK in memory, 4 MB a second for as long as the peer kept sending (never idle, so never timed
 * out). The real listener and intake over loopback; the server side's unsent bytes are read at each write.
 */

const start = mllpIntakePerTest();
// Registered after the intakes' stop, so run before it, as before: the spy on Socket writes is gone first.
afterEach(() => {
  vi.restoreAllMocks();
});

// Refused (no ORC, no order): answered AE with ERR segments, far longer than itself.
const REFUSED = 'MSH|^~\\&|EPR-7|CLINIC-H|RX|PH|20261202101500||RDE^O11|UNREAD-1|P|2.5\rPID|1';
const COPIES = 4_000;

const startWithIdleTimeout = (): Promise<RunningIntake> => start({ mode: 'hold' }, { idleTimeoutMs: 1_000 });

/** The greatest number of bytes the listener's side of a connection held unsent right after it wrote. */
function watchUnsent(port: number): { most: number } {
  const seen = { most: 0 };
  const write = Reflect.get(Socket.prototype, 'write') as (this: Socket, ...args: unknown[]) => boolean;
  vi.spyOn(Socket.prototype, 'write').mockImplementation(function (this: Socket, ...args: unknown[]) {
    const written = write.apply(this, args);
    if (this.localPort === port) seen.most = Math.max(seen.most, this.writableLength);
    return written;
  });
  return seen;
}

async function connectPaused(port: number): Promise<Socket> {
  const peer = connect(port, '127.0.0.1');
  peer.on('error', () => undefined);
  await new Promise<void>((resolve) => peer.once('connect', resolve));
  peer.pause();
  return peer;
}

const copies = () => Buffer.concat(Array<Buffer>(COPIES).fill(frame(REFUSED)));

describe('MLLP: a peer that does not read its ACKs', () => {
  it('is not read on while its ACKs wait, and is closed when idle with them unsent', async () => {
    const r = await startWithIdleTimeout();
    const unsent = watchUnsent(r.port);
    const peer = await connectPaused(r.port);
    peer.write(copies());
    // The listener ends the connection as idle (nothing read, nothing leaving): the peer never reads.
    const timedOut = () => r.logs.some((line) => line.startsWith('intake: closed an idle connection'));
    await vi.waitFor(() => expect(timedOut()).toBe(true), { timeout: 25_000, interval: 50 });
    // Closed by the listener, before the peer lets go: the count drops at the socket's close event, a turn after the
    // log line (a loaded machine can run this check in between).
    await vi.waitFor(() => expect(r.listener.stats.connections).toBe(0), { timeout: 5_000, interval: 20 });
    peer.destroy();
    // No more than the socket's own buffer (64 KiB) and one ACK waited in memory (before: megabytes).
    expect(unsent.most).toBeLessThan(128 * 1024);
  });

  it('gets every ACK in order once it reads', async () => {
    const r = await startWithIdleTimeout();
    const peer = await connectPaused(r.port);
    peer.write(copies());
    const chunks: Buffer[] = [];
    let ends = 0;
    let last = 0;
    const all = new Promise<void>((resolve, reject) => {
      peer.once('close', () => reject(new Error(`the connection closed after ${ends} of ${COPIES} ACKs`)));
      peer.on('data', (data: Buffer) => {
        chunks.push(data);
        for (const byte of data) {
          if (last === 0x1c && byte === 0x0d) ends += 1;
          last = byte;
        }
        if (ends >= COPIES) resolve();
      });
    });
    peer.resume();
    await all;
    peer.destroy();

    const acks = Buffer.concat(chunks).toString('latin1').split('\x1c\r').slice(0, -1);
    expect(acks).toHaveLength(COPIES);
    expect(acks[0]!.length).toBeGreaterThan(1_000);
    expect(new Set(acks.map((ack) => ack.split('\r')[1]))).toEqual(new Set(['MSA|AE|UNREAD-1']));
    // 4,000 messages: a loaded machine (the whole suite on two cores) needs more than the default 30 s.
  }, 90_000);
});
