import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { exchange, requestsConnecting } from './http-exchange.js';

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A loopback server; `answer` false accepts requests and never answers them. */
async function listen(answer: boolean): Promise<URL> {
  server = createServer((req, res) => {
    req.resume();
    if (answer) req.on('end', () => res.end('{}'));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
}

describe('requestsConnecting', () => {
  it('counts an exchange until its connection opens, and not after it ends', async () => {
    const url = await listen(true);
    const before = requestsConnecting();
    const pending = [1, 2, 3].map(() => exchange({ method: 'PUT', url, headers: {}, body: '{}', timeoutMs: 5_000 }));
    // Connections open on a later turn of the loop: until then all three are still to be written.
    expect(requestsConnecting()).toBe(before + 3);
    const results = await Promise.all(pending);
    expect(results.map((r) => r.kind)).toEqual(['response', 'response', 'response']);
    expect(requestsConnecting()).toBe(before);
  });

  it('counts down an exchange that never connected (refused) and one that timed out after connecting', async () => {
    const url = await listen(false);
    const before = requestsConnecting();
    const silent = exchange({ method: 'GET', url, headers: {}, timeoutMs: 100 });
    const closed = new URL(url);
    closed.port = '1';
    const refused = exchange({ method: 'GET', url: closed, headers: {}, timeoutMs: 5_000 });
    expect(requestsConnecting()).toBe(before + 2);
    expect(await refused).toMatchObject({ kind: 'failure', sent: false });
    expect(await silent).toMatchObject({ kind: 'failure', sent: true, timedOut: true });
    expect(requestsConnecting()).toBe(before);
  });
});
