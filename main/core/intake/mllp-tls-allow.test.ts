import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { frame, parseAck } from '../../../test/support/hl7-client.js';
import { writeRde011 } from '../importing/rde-writer.js';
import { uniqueOrder } from '../staging/testing/staging-fixtures.js';
import { MLLP_SENDER, mllpIntakePerTest } from './testing/mllp-intake.js';

/**
 * docs/security.md, finding 46: over TLS the allow-list was checked once the handshake was done, so a peer not in it
 * held a connection slot for as long as Node's handshake timeout (two minutes) by sending nothing: a few such
 * connections, reopened as they were closed, kept the allowed senders out (the cap) without ever being let in. The
 * real listener and intake over loopback: 127.0.0.2 is allowed, 127.0.0.1 is not.
 */

const startIntake = mllpIntakePerTest();
const dir = mkdtempSync(join(tmpdir(), 'rx-mllp-tls-allow-'));
const certPath = join(dir, 'server.pem');
const keyPath = join(dir, 'server.key');
execFileSync(
  'openssl',
  ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyPath, '-out', certPath, '-days', '1'].concat([
    '-subj',
    '/CN=localhost',
  ]),
  { stdio: 'ignore' },
);
const held: Socket[] = [];
afterEach(() => {
  for (const socket of held.splice(0)) socket.destroy();
});
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

/** A TCP connection from `from` that sends nothing (no ClientHello); `closed` once the listener ends it. */
function silent(port: number, from: string): Promise<{ socket: Socket; closed: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress: from }, () =>
      resolve({ socket, closed: new Promise((done) => socket.once('close', () => done())) }),
    );
    socket.on('error', () => undefined);
    socket.once('error', reject);
    held.push(socket);
  });
}

/** One message over TLS from `from`: its MSA-1, or 'refused' when the connection ended unanswered. */
function sendOverTls(port: number, from: string): Promise<string> {
  const text = writeRde011(uniqueOrder({}, 'TLS-ALLOW'), {
    controlId: `TLSA-${process.pid}-${Date.now()}`,
    timestamp: '20261203101500',
    ...MLLP_SENDER,
  });
  return new Promise((resolve) => {
    const socket = tlsConnect(
      {
        socket: connect({ port, host: '127.0.0.1', localAddress: from }),
        ca: readFileSync(certPath),
        servername: 'localhost',
      },
      () => socket.write(frame(text)),
    );
    let data = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      const end = data.indexOf(0x1c);
      if (end < 0) return;
      socket.destroy();
      resolve(parseAck(data.subarray(1, end).toString('utf8')).get('MSA.1') ?? '');
    });
    socket.on('error', () => resolve('refused'));
    socket.on('close', () => resolve('refused'));
  });
}

describe('MLLP over TLS with an allow-list', () => {
  it('closes a peer not in the allow-list before its handshake, so its silent connections hold no slot', async () => {
    const r = await startIntake(
      { mode: 'hold' },
      { tls: { certPath, keyPath }, allow: ['127.0.0.2'], maxConnections: 3 },
    );
    // As many silent connections as the cap, from an address the allow-list leaves out.
    const strangers = await Promise.all([0, 1, 2].map(() => silent(r.port, '127.0.0.1')));
    // Each is closed at once, before any byte of a handshake (before, each waited out the two-minute timeout).
    await Promise.race([
      Promise.all(strangers.map((s) => s.closed)),
      new Promise((_, reject) => setTimeout(() => reject(new Error('still open after 2 s')), 2000)),
    ]);
    // So the allowed sender gets in (before, the listener was full and closed it unread).
    expect(await sendOverTls(r.port, '127.0.0.2')).toBe('AA');
    // Refused for the allow-list, said once with the rest counted (finding 44), never as a failed handshake.
    await r.listener.close();
    await vi.waitFor(() =>
      expect(r.refusals).toEqual([
        { kind: 'peer', reason: 'allow', peer: expect.stringMatching(/^127\.0\.0\.1:\d+$/) as unknown },
        { kind: 'peer', reason: 'allow', peer: '127.0.0.1', count: 2 },
      ]),
    );
    expect(r.logs.filter((line) => line.includes('TLS handshake failed'))).toEqual([]);
  });

  it('still refuses a peer not in the allow-list that does the handshake, and answers the allowed one', async () => {
    const r = await startIntake({ mode: 'hold' }, { tls: { certPath, keyPath }, allow: ['127.0.0.2'] });
    expect(await sendOverTls(r.port, '127.0.0.1')).toBe('refused');
    expect(await sendOverTls(r.port, '127.0.0.2')).toBe('AA');
    expect(r.refusals).toEqual([
      { kind: 'peer', reason: 'allow', peer: expect.stringMatching(/^127\.0\.0\.1:\d+$/) as unknown },
    ]);
  });
});
