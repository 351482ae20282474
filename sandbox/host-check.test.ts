import { request } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from './index.js';

/**
 * DNS rebinding: the sandbox's API and identity server answer only for their own loopback Host and port. fetch
 * cannot set Host, so these requests are made with node:http and an explicit header.
 */

let sandbox: RunningSandbox;
let apiPort: number;
let issuerPort: number;

beforeAll(async () => {
  sandbox = await startSandbox({ statusStepMs: 3_600_000, adminRoutes: true });
  apiPort = Number(new URL(sandbox.apiUrl).port);
  issuerPort = Number(new URL(sandbox.issuer).port);
});

afterAll(async () => {
  await sandbox?.close();
});

function get(
  port: number,
  path: string,
  host: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'GET', headers: { ...headers, host } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const foreignHosts = (port: number, otherPort: number) => [
  `evil.example:${port}`,
  'evil.example',
  `127.0.0.1:${otherPort}`,
  `localhost:${otherPort}`,
  '127.0.0.1',
  `127.0.0.2:${port}`,
  `127.0.0.1.evil.example:${port}`,
];

describe('the API answers only for its own Host', () => {
  const paths = () =>
    [
      ['/api/v2/Product/search?searchTerm=para', {}],
      ['/__sandbox/orders', { authorization: `Bearer ${sandbox.adminToken}` }],
      ['/__sandbox/faults', { authorization: `Bearer ${sandbox.adminToken}` }],
    ] as const;

  it('refuses a foreign Host with 421 before any route: nothing about orders, products or faults', async () => {
    const before = sandbox.requestCount();
    for (const host of foreignHosts(apiPort, issuerPort)) {
      for (const [path, headers] of paths()) {
        const response = await get(apiPort, path, host, headers);
        expect(response.status, `${host} ${path}`).toBe(421);
        expect(response.body).toMatch(/^Misdirected request/);
        expect(response.body).not.toContain('dmdCode');
      }
    }
    // Refused before the service counted them.
    expect(sandbox.requestCount()).toBe(before);
  });

  it('answers its own loopback names with its port', async () => {
    for (const host of [`127.0.0.1:${apiPort}`, `localhost:${apiPort}`, `LOCALHOST:${apiPort}`, `[::1]:${apiPort}`]) {
      for (const [path, headers] of paths()) {
        expect((await get(apiPort, path, host, headers)).status, `${host} ${path}`).toBe(200);
      }
    }
  });
});

describe('the identity server answers only for its own Host', () => {
  const paths = ['/.well-known/openid-configuration', '/.well-known/openid-configuration/jwks', '/device'];

  it('refuses a foreign Host with 421, before oidc-provider builds anything from it', async () => {
    for (const host of foreignHosts(issuerPort, apiPort)) {
      for (const path of paths) {
        const response = await get(issuerPort, path, host);
        expect(response.status, `${host} ${path}`).toBe(421);
        expect(response.body).not.toContain('token_endpoint');
      }
    }
  });

  it('answers its own loopback names with its port, with its issuer unchanged', async () => {
    for (const host of [`127.0.0.1:${issuerPort}`, `localhost:${issuerPort}`, `[::1]:${issuerPort}`]) {
      const response = await get(issuerPort, '/.well-known/openid-configuration', host);
      expect(response.status, host).toBe(200);
      expect((JSON.parse(response.body) as { issuer: string }).issuer).toBe(sandbox.issuer);
    }
  });

  it('refuses a token request under a foreign Host too', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const body = new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: sandbox.serviceClient.clientId,
        client_secret: sandbox.serviceClient.clientSecret,
        scope: 'cloudrx_orderservice',
      }).toString();
      const req = request(
        {
          host: '127.0.0.1',
          port: issuerPort,
          path: '/connect/token',
          method: 'POST',
          headers: { host: `evil.example:${issuerPort}`, 'content-type': 'application/x-www-form-urlencoded' },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
    expect(status).toBe(421);
  });
});

/** One request written raw, so its target reaches the server exactly as given; the status line's code. */
function rawStatus(port: number, target: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`);
    });
    let head = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (head += chunk));
    socket.on('end', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0)));
    socket.on('error', reject);
  });
}

describe('a request target that is not a path', () => {
  // What `fetch('http://127.0.0.1:PORT//', { mode: 'no-cors' })` from any page sends: `new URL` threw on it in the
  // request handler, an uncaught error that ended the process (for the app's embedded sandbox, the core).
  const targets = ['//', '///', '//@', 'http://['];

  it('is answered 400 by the API, which goes on answering', async () => {
    for (const target of targets) expect(await rawStatus(apiPort, target), target).toBe(400);
    expect((await get(apiPort, '/api/v2/Product/search?searchTerm=para', `127.0.0.1:${apiPort}`)).status).toBe(200);
  });

  it('is answered 400 by the identity server, which goes on answering', async () => {
    for (const target of targets) expect(await rawStatus(issuerPort, target), target).toBe(400);
    expect((await get(issuerPort, '/.well-known/openid-configuration', `127.0.0.1:${issuerPort}`)).status).toBe(200);
  });
});
