import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { sampleV1 } from '../../../test/support/sample-orders.js';
import { createOrderServiceClient } from './client.js';
import { exchange } from './http-exchange.js';
import { WarmConnections } from './warm-connections.js';

/** A loopback server that counts connections and the requests on each. */
interface CountingServer {
  url: URL;
  connections: Socket[];
  requestsPerConnection: Map<Socket, number>;
  /** Connections closed without a single request. */
  closedUnused(): number;
}

let server: Server | undefined;
let warm: WarmConnections | undefined;
afterEach(async () => {
  warm?.close();
  warm = undefined;
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

async function countingServer(handle?: (socket: Socket) => boolean): Promise<CountingServer> {
  const connections: Socket[] = [];
  const requestsPerConnection = new Map<Socket, number>();
  const closed = new Set<Socket>();
  server = createServer((req, res) => {
    const socket = req.socket;
    requestsPerConnection.set(socket, (requestsPerConnection.get(socket) ?? 0) + 1);
    req.resume();
    // `handle` false: the request is dropped unanswered (a crash after receiving it).
    const answer = req.method === 'GET' ? '[]' : '{"orderId":1}';
    req.on('end', () => (handle && !handle(socket) ? socket.destroy() : res.end(answer)));
  });
  server.on('connection', (socket: Socket) => {
    connections.push(socket);
    socket.once('close', () => closed.add(socket));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return {
    url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api`),
    connections,
    requestsPerConnection,
    closedUnused: () => [...closed].filter((socket) => !requestsPerConnection.has(socket)).length,
  };
}

const put = (url: URL, warmConnections: WarmConnections) =>
  exchange({ method: 'PUT', url, headers: {}, body: '{}', timeoutMs: 5_000, warm: warmConnections });

describe('WarmConnections', () => {
  it('keeps a stream of requests on connections opened ahead, one request per connection', async () => {
    const s = await countingServer();
    warm = new WarmConnections(3);
    for (let i = 0; i < 20; i += 1) expect(await put(s.url, warm)).toMatchObject({ kind: 'response', status: 200 });
    // Every connection carried at most one request: none was reused.
    expect([...s.requestsPerConnection.values()].every((count) => count === 1)).toBe(true);
    expect(s.requestsPerConnection.size).toBe(20);
    // The first request connected on its own; later ones found spares, so at most `size` are left over.
    expect(s.connections.length).toBeGreaterThanOrEqual(20);
    expect(s.connections.length).toBeLessThanOrEqual(20 + 3);
  });

  it('closes spares nobody took after maxAgeMs, and keeps none for a request every so often', async () => {
    const s = await countingServer();
    // Spares are kept for as many requests as came within maxAgeMs: long enough here that the second request
    // still counts on a loaded machine (at 100 ms it sometimes did not, and no spare was opened).
    warm = new WarmConnections(3, 500);
    await put(s.url, warm);
    await put(s.url, warm);
    await vi.waitFor(() => expect(s.connections.length).toBeGreaterThan(2), { timeout: 3_000 });
    // Aged out: the server sees them closed without a request.
    await vi.waitFor(() => expect(s.closedUnused()).toBe(s.connections.length - 2), { timeout: 5_000 });
    const before = s.connections.length;
    // One request after a quiet spell: no spare is opened for it (it would only age out).
    await put(s.url, warm);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(s.connections.length).toBe(before + 1);
  });

  it('never hands out a spare the server closed, and opens none to a port that refuses', async () => {
    const s = await countingServer();
    warm = new WarmConnections(2);
    for (let i = 0; i < 3; i += 1) await put(s.url, warm);
    const idle = () => s.connections.filter((socket) => !s.requestsPerConnection.has(socket));
    await vi.waitFor(() => expect(idle().length).toBe(2));
    // The server drops its idle connections (the spares): the next request connects afresh and is answered.
    for (const socket of idle()) socket.destroy();
    // Long enough for the client's loop to see the close even on a loaded machine.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await put(s.url, warm)).toMatchObject({ kind: 'response', status: 200 });
    expect(s.requestsPerConnection.size).toBe(4);

    const refusing = new URL(s.url);
    refusing.port = '1';
    const other = new WarmConnections(2);
    for (let i = 0; i < 3; i += 1) {
      // Refused before anything was sent, every time: a spare to a dead port is never taken.
      expect(await put(refusing, other)).toMatchObject({ kind: 'failure', sent: false });
    }
    other.close();
  });

  it('a request lost on a warm connection is reported as possibly sent (in doubt), never as not sent', async () => {
    const s = await countingServer(() => false);
    warm = new WarmConnections(2);
    const results = [];
    for (let i = 0; i < 4; i += 1) results.push(await put(s.url, warm));
    expect(results.every((r) => r.kind === 'failure' && r.sent)).toBe(true);
    // Each of them did reach the server.
    expect(s.requestsPerConnection.size).toBe(4);
  });
});

describe('the client with warm connections', () => {
  it('sends creates over connections opened ahead, and connects for reads as it goes', async () => {
    const s = await countingServer();
    const client = createOrderServiceClient({
      apiBaseUrl: new URL('/', s.url).href,
      tokens: null,
      timeoutMs: 5_000,
      userAgent: 'RxBatch/test',
      createWithClinicVersion: 'v1',
      warmConnections: 2,
    });
    for (let i = 0; i < 10; i += 1) expect((await client.createWithClinic(sampleV1())).ok).toBe(true);
    // Spares were opened beside the ten: the creates used them, and two are left.
    await vi.waitFor(() => expect(s.connections.length).toBe(12));
    const leftOver = s.connections.slice(10);
    expect(leftOver.some((socket) => s.requestsPerConnection.has(socket))).toBe(false);
    for (let i = 0; i < 10; i += 1) expect((await client.searchProducts('para')).ok).toBe(true);
    // Ten searches, ten connections of their own: the creates' spares were not taken for them.
    expect(s.connections.length).toBe(22);
    expect(leftOver.some((socket) => s.requestsPerConnection.has(socket))).toBe(false);
    expect(s.requestsPerConnection.size).toBe(20);
    expect([...s.requestsPerConnection.values()].every((count) => count === 1)).toBe(true);
  });
});
