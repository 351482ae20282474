import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { exchange } from '../http-exchange.js';
import { WarmConnections } from '../warm-connections.js';

/**
 * Run by warm-connections-tls.test.ts in a child process whose NODE_EXTRA_CA_CERTS trusts the test certificate
 * (Node reads it only at start-up): an HTTPS server on loopback, ten PUTs through warm connections to `host`, and
 * what the server saw and how many requests went over a warm connection, as one JSON line.
 */
const host = process.argv[2] ?? 'localhost';
const fixtures = new URL('../../../../test/fixtures/tls/', import.meta.url);
const requestsPerConnection = new Map<Socket, number>();
let connections = 0;
const server = createServer(
  { cert: readFileSync(new URL('localhost.crt', fixtures)), key: readFileSync(new URL('localhost.key', fixtures)) },
  (req, res) => {
    requestsPerConnection.set(req.socket, (requestsPerConnection.get(req.socket) ?? 0) + 1);
    req.resume();
    req.on('end', () => res.end('{"orderId":1}'));
  },
);
server.on('secureConnection', () => (connections += 1));
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = new URL(`https://${host}:${(server.address() as AddressInfo).port}/api`);
const warm = new WarmConnections(2);
const results = [];
for (let i = 0; i < 10; i += 1) {
  const result = await exchange({ method: 'PUT', url, headers: {}, body: '{}', timeoutMs: 5_000, warm });
  results.push(
    result.kind === 'response' ? result.status : `${result.kind}:${result.kind === 'failure' ? result.code : ''}`,
  );
  // Time for the spares opened so far to finish their handshake: at least the next request finds one ready.
  if (i === 1) await new Promise((resolve) => setTimeout(resolve, 200));
}
warm.close();
server.closeAllConnections();
server.close();
process.stdout.write(
  `${JSON.stringify({ results, connections, warm: warm.handedOut, requests: [...requestsPerConnection.values()] })}\n`,
);
