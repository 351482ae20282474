import { connect, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { MAX_SANDBOX_CONNECTIONS } from './connection-cap.js';
import { startSandbox, type RunningSandbox } from './index.js';

/**
 * docs/security.md, finding 37: the sandbox's API reads a whole body (up to 1 MB) before it looks at the bearer
 * token, and Node gives a request 5 minutes to arrive, so any local user could hold that much per connection,
 * thousands of connections, without signing in: 300 held 302 MB. The app's embedded sandbox runs in the core, so
 * this ended the core out of memory. Raw sockets over loopback against the real sandbox.
 */

let sandbox: RunningSandbox;
let apiPort: number;
let issuerPort: number;
const held: Socket[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ statusStepMs: 3_600_000 });
  apiPort = Number(new URL(sandbox.apiUrl).port);
  issuerPort = Number(new URL(sandbox.issuer).port);
});
afterEach(() => {
  for (const socket of held.splice(0)) socket.destroy();
});
afterAll(async () => {
  await sandbox?.close();
});

function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
    held.push(socket);
  });
}

/** A request whose body is still coming: the server holds what came so far. */
async function holdUnfinished(port: number): Promise<void> {
  const socket = await open(port);
  socket.on('error', () => undefined);
  socket.write(
    `POST /api/v2/Order HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
      `Content-Length: 1000000\r\n\r\n${'a'.repeat(4096)}`,
  );
}

/** A whole GET on a new connection (kept open): its status line, or null when the connection closed unanswered. */
async function answerTo(port: number, path: string): Promise<string | null> {
  const socket = await open(port);
  return new Promise((resolve) => {
    let text = '';
    socket.on('data', (data: Buffer) => {
      text += data.toString('latin1');
      if (text.includes('\r\n')) resolve(text.slice(0, text.indexOf('\r\n')));
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(null));
    socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
  });
}

describe.each([
  ['API', () => apiPort, '/api/v2/Order/status?orderId=1'],
  ['identity server', () => issuerPort, '/.well-known/openid-configuration'],
])('the sandbox %s: connections at once', (_name, port, path) => {
  it(`takes ${MAX_SANDBOX_CONNECTIONS}, closes one more unanswered, and answers again once they go`, async () => {
    for (let i = 0; i < MAX_SANDBOX_CONNECTIONS - 1; i += 1) await holdUnfinished(port());
    // The last one the sandbox takes is answered (and stays open).
    expect(await answerTo(port(), path)).toMatch(/^HTTP\/1\.1 \d{3}/);
    expect(await answerTo(port(), path)).toBeNull();

    for (const socket of held.splice(0)) socket.destroy();
    await vi.waitFor(async () => expect(await answerTo(port(), path)).toMatch(/^HTTP\/1\.1 \d{3}/), {
      timeout: 10_000,
      interval: 50,
    });
  });
});
