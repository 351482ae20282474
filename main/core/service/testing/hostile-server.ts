import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { createOrderServiceClient, type OrderServiceClient } from '../client.js';

/**
 * A loopback "Order Service" that answers with raw bytes, for the faults a well-behaved HTTP server cannot make:
 * headers trickling in, a body that stops mid-chunk, a reset after (or before) the request was read, 1xx answers,
 * a body that never ends. Each connection's request is read in full (head and Content-Length body, unless the
 * script wants the raw connection), then handed to the test's script with the socket.
 */

export interface RawRequest {
  method: string;
  /** Path and query. */
  target: string;
  /** Header names lower-cased. */
  headers: Record<string, string>;
  body: string;
}

export interface HostileServer {
  /** `http://127.0.0.1:<port>/` */
  url: string;
  port: number;
  /** Every request read, in order. */
  requests: RawRequest[];
  /** Connections accepted. */
  connections(): number;
  /** What the next requests get (replaces the script). */
  answer(script: Script): void;
  close(): Promise<void>;
}

/** Called once the request is read (or at once, on connection, with `onConnect`). */
export type Script = ((socket: Socket, request: RawRequest) => void) & { onConnect?: boolean };

/** A script that acts as soon as the connection is accepted, before reading anything. */
export function onConnect(act: (socket: Socket) => void): Script {
  const script = ((socket: Socket) => act(socket)) as Script;
  script.onConnect = true;
  return script;
}

/** A complete answer: status line, headers (Content-Length added unless a transfer-encoding is given), body. */
export function rawAnswer(status: number, body: string | Buffer = '', headers: Record<string, string> = {}): Buffer {
  const payload = typeof body === 'string' ? Buffer.from(body) : body;
  const all: Record<string, string> = { connection: 'close', ...headers };
  if (!Object.keys(all).some((name) => /^(content-length|transfer-encoding)$/i.test(name)))
    all['content-length'] = String(payload.length);
  const head = [`HTTP/1.1 ${status} X`, ...Object.entries(all).map(([name, value]) => `${name}: ${value}`), '', ''];
  return Buffer.concat([Buffer.from(head.join('\r\n')), payload]);
}

/** Answers every request with these bytes and closes. */
export function answerWith(status: number, body: string | Buffer = '', headers: Record<string, string> = {}): Script {
  return (socket) => socket.end(rawAnswer(status, body, headers));
}

export async function startHostileServer(initial: Script = answerWith(200, '{}')): Promise<HostileServer> {
  let script = initial;
  let accepted = 0;
  const requests: RawRequest[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    accepted += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    const current = script;
    if (current.onConnect) {
      current(socket, { method: '', target: '', headers: {}, body: '' });
      return;
    }
    let buffered = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      const end = buffered.indexOf('\r\n\r\n');
      if (end < 0) return;
      const [line = '', ...lines] = buffered.subarray(0, end).toString('latin1').split('\r\n');
      const headers: Record<string, string> = {};
      for (const header of lines) {
        const colon = header.indexOf(':');
        headers[header.slice(0, colon).trim().toLowerCase()] = header.slice(colon + 1).trim();
      }
      const length = Number(headers['content-length'] ?? 0);
      if (buffered.length < end + 4 + length) return;
      socket.off('data', onData);
      const [method = '', target = ''] = line.split(' ');
      const request = { method, target, headers, body: buffered.subarray(end + 4, end + 4 + length).toString('utf8') };
      requests.push(request);
      current(socket, request);
    };
    socket.on('data', onData);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    port,
    requests,
    connections: () => accepted,
    answer: (next) => {
      script = next;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A client of the Order Service at `url` (a raw server's) with a fixed token that is never refreshed. */
export function rawServerClient(url: string): OrderServiceClient {
  return createOrderServiceClient({
    apiBaseUrl: url,
    tokens: { getAccessToken: () => Promise.resolve('token'), refresh: () => Promise.resolve(false) },
    timeoutMs: 5_000,
    userAgent: 'RxBatch/test',
    createWithClinicVersion: 'v1',
  });
}
