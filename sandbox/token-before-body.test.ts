import { connect, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { requestClientCredentialsToken } from '../test/support/client-credentials.js';
import { startSandbox, type RunningSandbox } from './index.js';

/**
 * docs/security.md, finding 42: the sandbox's API read a request's whole body (up to 1 MB) before it looked at the
 * bearer token, so a caller with no token held a megabyte per connection for as long as it trickled one in
 * (finding 37 capped the connections). The token is now checked first. Raw sockets over loopback, real sandbox.
 */

let sandbox: RunningSandbox;
let apiPort: number;
let token: string;
const sockets: Socket[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ statusStepMs: 3_600_000 });
  apiPort = Number(new URL(sandbox.apiUrl).port);
  token = await requestClientCredentialsToken({ issuer: sandbox.issuer, ...sandbox.serviceClient });
});
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.destroy();
});
afterAll(async () => {
  await sandbox?.close();
});

/** Sends the headers of a 1 MB `PUT` and its first 4 KiB; resolves with the first status line that comes back. */
function startPost(
  authorization: string | undefined,
  path = '/api/v2/Order/create',
): { socket: Socket; status: Promise<string | null> } {
  const socket = connect(apiPort, '127.0.0.1');
  sockets.push(socket);
  socket.on('error', () => undefined);
  const status = new Promise<string | null>((resolve) => {
    let text = '';
    socket.on('data', (data: Buffer) => {
      text += data.toString('latin1');
      if (text.includes('\r\n')) resolve(text.slice(0, text.indexOf('\r\n')));
    });
    socket.on('close', () => resolve(null));
  });
  socket.write(
    `PUT ${path} HTTP/1.1\r\nHost: 127.0.0.1:${apiPort}\r\nContent-Type: application/json\r\n` +
      (authorization ? `Authorization: ${authorization}\r\n` : '') +
      `Content-Length: 1000000\r\n\r\n${' '.repeat(4096)}`,
  );
  return { socket, status };
}

describe('the sandbox API checks the bearer token before it reads a body', () => {
  it('answers 401 while a body without a token, or with a wrong one, is still arriving', async () => {
    // Before, neither was answered until the whole megabyte had come.
    expect(await startPost(undefined).status).toBe('HTTP/1.1 401 Unauthorized');
    expect(await startPost('Bearer not-a-token').status).toBe('HTTP/1.1 401 Unauthorized');
    // A path no route takes, or a method its route does not: answered without waiting for the body too.
    expect(await startPost(undefined, '/api/v2/Order').status).toBe('HTTP/1.1 404 Not Found');
    expect(await startPost(undefined, '/api/v2/Order/status').status).toBe('HTTP/1.1 405 Method Not Allowed');
  });

  it('reads the whole body of a caller with a valid token, as before, and then answers it', async () => {
    const { socket, status } = startPost(`Bearer ${token}`);
    let answered = false;
    void status.then(() => (answered = true));
    // A request that is answered only after it ends: the rest of the body, then the sandbox's verdict on it.
    await new Promise<void>((resolve) => socket.write(' '.repeat(1_000_000 - 4096 - 2), () => resolve()));
    expect(answered).toBe(false);
    socket.write('{}');
    expect(await status).toMatch(/^HTTP\/1\.1 4\d\d /);
  });
});
