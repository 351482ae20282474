import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { RawMllpSocket, frame } from '../../../test/support/hl7-client.js';
import { writeRde011 } from '../importing/rde-writer.js';
import { uniqueOrder } from '../staging/testing/staging-fixtures.js';
import { startMllpIntake, stopMllpIntake, type RunningIntake } from './testing/mllp-intake.js';

/**
 * docs/security.md, finding 18: any web page the admin visits can have the browser POST to 127.0.0.1:2575
 * (`fetch(url, { method: 'POST', mode: 'no-cors', body })` needs no answer it can read). The MLLP framer skips
 * whatever comes before a start byte, so the request line and headers were skipped as stray bytes and an MLLP frame
 * in the body was staged as an order (and, under `--on-arrival send`, sent in the clinic's name). Real HTTP clients
 * over loopback against the real listener and intake, real SQLite.
 */

const SENDER = { sendingApplication: 'EPR-7', sendingFacility: 'CLINIC-H' };

let running: RunningIntake | undefined;
afterEach(async () => {
  if (running) await stopMllpIntake(running);
  running = undefined;
});

// Send on arrival: what a page could make the service receive.
async function start(): Promise<RunningIntake> {
  running = await startMllpIntake({ mode: 'send' });
  return running;
}

let seq = 0;
const message = () =>
  writeRde011(uniqueOrder({}, 'WEB'), {
    controlId: `WEB-${process.pid}-${++seq}`,
    timestamp: '20261201101500',
    ...SENDER,
  });

const stagedCount = (r: RunningIntake) =>
  (r.fixture.store.db.prepare('SELECT count(*) AS n FROM staged_orders').get() as { n: number }).n;
const intakeActions = (r: RunningIntake) =>
  r.fixture.store.audit
    .search({})
    .filter((entry) => entry.action.startsWith('intake.'))
    .map((entry) => entry.action);

/**
 * Writes `chunks` on one connection, one write each, and resolves with what was answered: once the listener closes
 * the connection, or once it has answered one whole frame (then this side closes it).
 */
function rawConnection(port: number, chunks: Array<string | Buffer>): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let answered = Buffer.alloc(0);
    const socket = connect(port, '127.0.0.1', () => {
      const writeNext = (index: number) => {
        if (index >= chunks.length || socket.destroyed) return;
        socket.write(chunks[index]!, () => setImmediate(() => writeNext(index + 1)));
      };
      writeNext(0);
    });
    socket.on('data', (data: Buffer) => {
      answered = Buffer.concat([answered, data]);
      if (answered.includes(Buffer.of(0x1c, 0x0d))) socket.end();
    });
    socket.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' ? undefined : reject(error)));
    socket.on('close', () => resolve(answered));
  });
}

describe('an HTTP request to the MLLP port (a web page in the admin’s browser)', () => {
  it('is refused: the frame in its body is never read, staged or answered, and the refusal is audited', async () => {
    const r = await start();
    // What the browser puts on the wire for the page's fetch: request line, headers, then the body it chose.
    const sent = await fetch(`http://127.0.0.1:${r.port}/`, {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain;charset=UTF-8', Origin: 'https://attacker.example' },
      body: new Uint8Array(frame(message())),
    }).then(
      () => 'answered',
      () => 'failed',
    );
    expect(sent).toBe('failed');
    await r.intake.staged();
    expect(stagedCount(r)).toBe(0);
    expect(r.listener.stats.messages).toBe(0);
    expect(intakeActions(r)).toEqual(['intake.peer.refused']);
    // Why, in the entry itself: an admin reading the log or its export is not told the peer was not allowed.
    const [refused] = r.fixture.store.audit.search({ action: 'intake.peer.refused' });
    expect(refused!.details).toEqual({
      peer: expect.stringMatching(/^127\.0\.0\.1:\d+$/) as unknown,
      outcome: 'peer',
      reason: 'http',
    });
    expect(r.logs.some((entry) => entry.includes('began as an HTTP request'))).toBe(true);
  });

  it('is refused however its bytes are split and its method written, and answers nothing, not even an ACK', async () => {
    const r = await start();
    const body = frame(message());
    const head = `post /intake HTTP/1.1\r\nHost: 127.0.0.1:${r.port}\r\nContent-Length: ${body.length}\r\n\r\n`;
    const answer = await rawConnection(r.port, ['po', head.slice(2, 9), head.slice(9), body]);
    expect(answer.length).toBe(0);
    await r.intake.staged();
    expect(stagedCount(r)).toBe(0);
  });

  it('leaves MLLP senders as they were: a frame first, or after stray line breaks, is staged', async () => {
    const r = await start();
    const first = await RawMllpSocket.open(r.port);
    first.write(frame(message()));
    expect((await first.waitFor(1))[0]!.get('MSA.1')).toBe('AA');
    first.close();
    const answer = await rawConnection(r.port, ['\r\n', Buffer.concat([Buffer.from('\n'), frame(message())])]);
    expect(answer.includes('MSA|AA')).toBe(true);
    await r.intake.staged();
    expect(stagedCount(r)).toBe(2);
    expect(intakeActions(r)).not.toContain('intake.peer.refused');
  });
});

/**
 * Finding 51: a page's own server can choose a TLS session ticket (opaque bytes, up to 64 KB) and then point its
 * name at 127.0.0.1; the browser's next ClientHello carries the ticket, so a frame inside it reached the framer,
 * which skipped the handshake's bytes before it. A connection that does not begin as MLLP is closed unread.
 */
describe('a connection that does not begin with an MLLP start byte', () => {
  // A TLS record header (handshake, TLS 1.0 record version) and a ClientHello's opening, a frame in its ticket.
  const clientHello = (body: Buffer) =>
    Buffer.concat([
      Buffer.of(0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03),
      body,
      Buffer.alloc(40),
    ]);

  it('is refused, the frame it carries never read, and the refusal audited and said on screen', async () => {
    const r = await start();
    const answer = await rawConnection(r.port, [clientHello(frame(message()))]);
    expect(answer.length).toBe(0);
    await r.intake.staged();
    expect(stagedCount(r)).toBe(0);
    expect(r.listener.stats.messages).toBe(0);
    expect(intakeActions(r)).toEqual(['intake.peer.refused']);
    const [refused] = r.fixture.store.audit.search({ action: 'intake.peer.refused' });
    expect(refused!.details).toMatchObject({ outcome: 'peer', reason: 'not-mllp' });
    expect(r.logs.some((entry) => entry.includes('did not begin with an MLLP start byte'))).toBe(true);
  });

  it('is refused for any other opening: SSLv2, a binary protocol, text that is not HTTP, line breaks alone', async () => {
    const r = await start();
    const openings = [
      Buffer.concat([Buffer.of(0x80, 0x2e, 0x01, 0x03, 0x01), frame(message())]),
      Buffer.concat([Buffer.of(0x00, 0x01, 0x00, 0x08), frame(message())]),
      Buffer.concat([Buffer.from('HELLO there\n'), frame(message())]),
      Buffer.concat([Buffer.from('\r\n'.repeat(20)), frame(message())]),
    ];
    for (const opening of openings) expect((await rawConnection(r.port, [opening])).length).toBe(0);
    await r.intake.staged();
    expect(stagedCount(r)).toBe(0);
    expect(r.listener.stats.messages).toBe(0);
  });
});
