import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { BRIDGE_SOCKET_PATH } from '../../shared/transport-protocol.js';
import { handlersWith } from '../../test/support/call-handlers.js';
import { pageHandshake } from '../../test/support/bridge-handshake-client.js';
import { CoreEvents } from '../core/platform/events.js';
import { inProcessConnection } from '../transport/core-connection.js';
import { MAX_BRIDGE_CONNECTIONS, startBridge, type RunningBridge } from './bridge-server.js';

/**
 * docs/security.md, finding 38: before a socket presents the launch secret, it may already send most of a 1 MB
 * frame, which the bridge holds until the frame ends or the socket goes (10 s for the secret, then the close
 * handshake). A local process can set any `Origin`, and the bridge took every connection: 300 such sockets held
 * 300 MB of browser mode's host, and reconnecting as each was closed, thousands could end it out of memory. Raw
 * sockets and a ws client over loopback against the real bridge.
 */

let dir: string;
let bridge: RunningBridge;
const held: Socket[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rxbatch-bridge-cap-'));
  await mkdir(join(dir, 'renderer'));
  await writeFile(join(dir, 'renderer', 'index.html'), '<!doctype html><title>Rx Batch</title>');
  const handlers = handlersWith({
    'app.info': () => Promise.resolve({ name: 'Rx Batch', version: '9.9.9', transport: 'browser', dataDir: dir }),
  });
  bridge = await startBridge({
    core: inProcessConnection({ handlers, events: new CoreEvents() }),
    staticDir: join(dir, 'renderer'),
  });
});

afterAll(async () => {
  for (const socket of held) socket.destroy();
  await bridge.close();
  await rm(dir, { recursive: true, force: true });
});

function rawConnection(): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(bridge.port, '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
    held.push(socket);
  });
}

/** An upgraded socket, secret not presented, in the middle of a 1,000,000-byte frame. */
async function holdUnfinishedFrame(): Promise<void> {
  const socket = await rawConnection();
  socket.on('error', () => undefined);
  const upgraded = new Promise<string>((resolve) => socket.once('data', (data: Buffer) => resolve(String(data))));
  socket.write(
    `GET ${BRIDGE_SOCKET_PATH} HTTP/1.1\r\nHost: 127.0.0.1:${bridge.port}\r\nOrigin: ${bridge.origin}\r\n` +
      'Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n' +
      'Sec-WebSocket-Version: 13\r\n\r\n',
  );
  expect(await upgraded).toMatch(/^HTTP\/1\.1 101/);
  const header = Buffer.alloc(14);
  header[0] = 0x82; // a whole binary frame
  header[1] = 0xff; // masked, 64-bit length
  header.writeBigUInt64BE(1_000_000n, 2);
  socket.write(Buffer.concat([header, Buffer.alloc(64 * 1024, 1)]));
}

/** `GET /` on a new connection (kept open): its status line, or null when the connection closed unanswered. */
async function pageAnswer(): Promise<string | null> {
  const socket = await rawConnection();
  return new Promise((resolve) => {
    let text = '';
    socket.on('data', (data: Buffer) => {
      text += data.toString('latin1');
      if (text.includes('\r\n')) resolve(text.slice(0, text.indexOf('\r\n')));
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(null));
    socket.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${bridge.port}\r\n\r\n`);
  });
}

/** The page's own client: opens the socket, presents the secret, asks app.info. */
async function pageCall(): Promise<unknown> {
  const socket = new WebSocket(`ws://127.0.0.1:${bridge.port}${BRIDGE_SOCKET_PATH}`, {
    headers: { Origin: bridge.origin },
  });
  try {
    const messages: unknown[] = [];
    const next = () =>
      new Promise<unknown>((resolve) => socket.once('message', (data: Buffer) => resolve(JSON.parse(String(data)))));
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    const handshake = pageHandshake(bridge.secret);
    const challenge = next();
    socket.send(handshake.hello);
    const ready = (async () => {
      const proof = await handshake.reply(await challenge);
      const answer = next();
      socket.send(proof);
      return answer;
    })();
    messages.push(await ready);
    const answer = next();
    socket.send(JSON.stringify({ id: 1, call: 'app.info', input: {} }));
    messages.push(await answer);
    return messages;
  } finally {
    socket.terminate();
  }
}

describe('the bridge: connections at once', () => {
  it(`takes ${MAX_BRIDGE_CONNECTIONS}, closes one more unanswered, and serves the page once they go`, async () => {
    for (let i = 0; i < MAX_BRIDGE_CONNECTIONS - 1; i += 1) await holdUnfinishedFrame();
    // The last one it takes is answered (and stays open); one more is closed before anything of it is read.
    expect(await pageAnswer()).toBe('HTTP/1.1 200 OK');
    expect(await pageAnswer()).toBeNull();

    for (const socket of held.splice(0)) socket.destroy();
    await vi.waitFor(async () => expect(await pageAnswer()).toBe('HTTP/1.1 200 OK'), { timeout: 10_000, interval: 50 });
    expect(await pageCall()).toEqual([
      { ready: true },
      { id: 1, ok: true, value: expect.objectContaining({ name: 'Rx Batch' }) as unknown },
    ]);
  });
});
