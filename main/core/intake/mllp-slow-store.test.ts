import { afterEach, describe, expect, it } from 'vitest';
import { RawMllpSocket, frame } from '../../../test/support/hl7-client.js';
import { buildAck } from './hl7-ack.js';
import type { IntakeResult } from './intake-service.js';
import { MllpListener } from './mllp-listener.js';

/**
 * A message the store takes longer to keep than the idle timeout (a slow disk's fsync, a loaded machine): the peer
 * sent it and waits for its ACK, so the connection is not idle. It used to be closed as idle mid-store, and the
 * sender, without its ACK, had to reconnect and resend. The real listener over loopback; the store is a wait.
 */

const IDLE_MS = 200;
let listener: MllpListener | undefined;
let peer: RawMllpSocket | undefined;
afterEach(async () => {
  peer?.close();
  await listener?.close();
  listener = peer = undefined;
});

const MESSAGE = 'MSH|^~\\&|EPR-7|CLINIC-H|RX|PH|20261202101500||RDE^O11|SLOW-1|P|2.5\rPID|1';

function slowStore(storeMs: number): { lines: string[]; stored: number } {
  const seen = { lines: [] as string[], stored: 0 };
  listener = new MllpListener({
    port: 0,
    idleTimeoutMs: IDLE_MS,
    handle: async (): Promise<IntakeResult> => {
      await new Promise((resolve) => setTimeout(resolve, storeMs));
      seen.stored += 1;
      const ack = buildAck(undefined, { code: 'AA', errors: [] });
      return { code: 'AA', ack, resent: false, batchId: null, recordId: null };
    },
    logger: {
      info: (line) => seen.lines.push(line),
      warn: (line) => seen.lines.push(line),
      error: (line) => seen.lines.push(line),
    },
  });
  return seen;
}

describe('MLLP: a message slower to store than the idle timeout', () => {
  it('is acknowledged on the open connection, and the next one is read', async () => {
    const seen = slowStore(IDLE_MS * 4);
    const { port } = await listener!.listen();
    peer = await RawMllpSocket.open(port);
    peer.write(Buffer.concat([frame(MESSAGE), frame(MESSAGE.replace('SLOW-1', 'SLOW-2'))]));
    const acks = await peer.waitFor(2, 10_000);
    expect(acks.map((ack) => ack.get('MSA.1'))).toEqual(['AA', 'AA']);
    expect(peer.closed).toBe(false);
    expect(seen.lines.filter((line) => line.includes('idle'))).toEqual([]);
  });

  it('still closes the connection once the peer is idle after its ACK', async () => {
    const seen = slowStore(IDLE_MS * 2);
    const { port } = await listener!.listen();
    peer = await RawMllpSocket.open(port);
    peer.write(frame(MESSAGE));
    await peer.waitFor(1, 10_000);
    await peer.waitFor(2, 10_000);
    expect(peer.closed).toBe(true);
    expect(seen.lines).toContain('intake: closed an idle connection');
  });
});
