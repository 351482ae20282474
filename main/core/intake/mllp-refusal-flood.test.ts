import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startMllpIntake, stopMllpIntake, type RunningIntake } from './testing/mllp-intake.js';

/**
 * docs/security.md, finding 44: a connection refused on connect (a peer not in the allow-list, one that began as an
 * HTTP request, a failed mutual-TLS handshake) was a log line and an HMAC-chained audit entry each, so any peer that
 * can reach the port grew the audit log without bound by connecting in a loop. The first from an address is said as
 * before; the rest within the interval are counted into one line and one entry. Real listener, intake and SQLite.
 */

let running: RunningIntake | undefined;
afterEach(async () => {
  if (running) await stopMllpIntake(running);
  running = undefined;
});

/** One connection from `from`, writing `opening` if given; resolves once the listener has closed it. */
function refusedConnection(port: number, from: string, opening?: string): Promise<void> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress: from }, () => {
      if (opening !== undefined) socket.write(opening);
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve());
  });
}

const refusals = (r: RunningIntake) =>
  r.fixture.store.audit.search({ action: 'intake.peer.refused' }).map((entry) => entry.details);

describe('a flood of refused connections', () => {
  it('from a peer not in the allow-list: one entry and one line, then one with the count', async () => {
    const r = (running = await startMllpIntake({ mode: 'hold' }, { allow: ['10.9.9.9'] }));
    for (let i = 0; i < 40; i += 1) await refusedConnection(r.port, '127.0.0.1');
    // Another address is said on its own.
    await refusedConnection(r.port, '127.0.0.2');
    expect(r.listener.stats.refusedPeers).toBe(41);
    // Before, 41 entries and 41 lines.
    expect(refusals(r)).toHaveLength(2);
    expect(r.logs.filter((line) => line.includes('not in the allow-list'))).toHaveLength(2);

    // Stopping says what was counted: one entry with the count, for the address that had more.
    await r.listener.close();
    const entries = refusals(r);
    expect(entries).toHaveLength(3);
    expect(entries.filter((details) => details.connectionCount !== undefined)).toEqual([
      expect.objectContaining({ peer: '127.0.0.1', outcome: 'peer', reason: 'allow-list', connectionCount: 39 }),
    ]);
    // The log says why each was refused, not only that a peer was.
    expect(entries.map((details) => details.reason)).toEqual(['allow-list', 'allow-list', 'allow-list']);
    expect(r.logs.filter((line) => line.includes('more connections refused'))).toEqual([
      expect.stringContaining('"connections":39'),
    ]);
    // Each refusal, and the summary, says why: the Intake screen words it from this.
    expect(r.refusals.map((refusal) => refusal.kind === 'peer' && refusal.reason)).toEqual(['allow', 'allow', 'allow']);
  });

  it('that begin as HTTP requests: one entry, then one with the count', async () => {
    const r = (running = await startMllpIntake({ mode: 'hold' }));
    for (let i = 0; i < 25; i += 1) await refusedConnection(r.port, '127.0.0.1', 'POST / HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(refusals(r)).toHaveLength(1);
    await r.listener.close();
    // Newest first: the count, then the first refusal.
    expect(refusals(r).map((details) => details.connectionCount)).toEqual([24, undefined]);
    // Both say it was an HTTP request, not a peer the allow-list left out (there is none here).
    expect(refusals(r).map((details) => [details.outcome, details.reason])).toEqual([
      ['peer', 'http'],
      ['peer', 'http'],
    ]);
    expect(r.refusals).toEqual([
      { kind: 'peer', reason: 'http', peer: expect.stringMatching(/^127\.0\.0\.1:\d+$/) as unknown },
      { kind: 'peer', reason: 'http', peer: '127.0.0.1', count: 24 },
    ]);
  });
});
