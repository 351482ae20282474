import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { BRIDGE_SOCKET_PATH, POLICY_VIOLATION } from '../../shared/transport-protocol.js';
import { MAX_MESSAGE_BYTES, type CallHandlers } from '../../shared/contract.js';
import { DEFAULT_SENDING_PACE } from '../../shared/environment.js';
import { CoreEvents } from '../core/platform/events.js';
import { presetEnvironments } from '../core/environments/presets.js';
import { pageHandshake } from '../../test/support/bridge-handshake-client.js';
import { handlersWith } from '../../test/support/call-handlers.js';
import { inProcessConnection } from '../transport/core-connection.js';
import { MAX_INPUT_DEPTH } from '../transport/dispatch.js';
import { startBridge, type RunningBridge } from './bridge-server.js';

/** A small but real core: every call answers from plain data, so what crosses the socket can be checked. */
const handlers: CallHandlers = handlersWith({
  'app.info': () => Promise.resolve({ name: 'Rx Batch', version: '9.9.9', transport: 'browser', dataDir: '/tmp/rx' }),
  'environments.list': () =>
    Promise.resolve(presetEnvironments().map((e) => ({ ...e, ...DEFAULT_SENDING_PACE, running: false }))),
  'connection.check': ({ environmentId }) =>
    Promise.resolve({
      environmentId,
      checkedAt: new Date(0).toISOString(),
      api: { reachable: true, latencyMs: 1, message: 'ok' },
      identity: { reachable: true, deviceAuthorization: true, clientCredentials: true, message: 'ok' },
    }),
  'couriers.priceList': () =>
    Promise.resolve({
      ok: true,
      value: [{ courierCode: 'RMT24', deliveryOption: 'Tracked 24', price: 4.5, currencyCode: 'GBP' }],
    }),
  'products.search': ({ searchTerm }) =>
    Promise.resolve({
      ok: true,
      value: [{ productId: 1, dmdCode: '123456789012345678', name: searchTerm, packSize: 28 }],
    }),
});

let dir: string;
let staticDir: string;
let bridge: RunningBridge;
const events = new CoreEvents();
const opened: WebSocket[] = [];
/** The names of the calls the bridge passed on to the core. */
const relayed: unknown[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rxbatch-bridge-'));
  staticDir = join(dir, 'renderer');
  await mkdir(join(staticDir, 'assets'), { recursive: true });
  await writeFile(join(staticDir, 'index.html'), '<!doctype html><title>Rx Batch</title>');
  await writeFile(join(staticDir, 'assets', 'app.js'), 'export {};');
  await writeFile(join(dir, 'outside.txt'), 'must never be served');
  await symlink(join(dir, 'outside.txt'), join(staticDir, 'link.txt'));
  const core = inProcessConnection({ handlers, events });
  bridge = await startBridge({
    core: {
      ...core,
      // Counted, and carried as JSON text as the real core host's channel carries it.
      call: (name, input) => {
        relayed.push(name);
        return core.call(name, JSON.parse(JSON.stringify(input ?? null)) as unknown);
      },
    },
    staticDir,
  });
});

afterAll(async () => {
  for (const socket of opened) if (socket.readyState === WebSocket.OPEN) socket.terminate();
  await bridge.close();
  await rm(dir, { recursive: true, force: true });
});

type Opened = { socket: WebSocket; next: () => Promise<unknown>; closed: Promise<{ code: number; reason: string }> };

function open(headers: Record<string, string> = { Origin: bridge.origin }): Promise<Opened> {
  const socket = new WebSocket(`ws://127.0.0.1:${bridge.port}${BRIDGE_SOCKET_PATH}`, { headers });
  opened.push(socket);
  const inbox: unknown[] = [];
  const waiting: Array<(message: unknown) => void> = [];
  socket.on('message', (data: Buffer) => {
    const message = JSON.parse(data.toString('utf8')) as unknown;
    const waiter = waiting.shift();
    if (waiter) waiter(message);
    else inbox.push(message);
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  return new Promise((resolve, reject) => {
    socket.once('open', () =>
      resolve({
        socket,
        closed,
        next: () => (inbox.length ? Promise.resolve(inbox.shift()) : new Promise((r) => waiting.push(r))),
      }),
    );
    socket.once('unexpected-response', (_request, response) => reject(new Error(`HTTP ${response.statusCode}`)));
    socket.once('error', reject);
  });
}

async function authenticated(): Promise<Opened> {
  const client = await open();
  const handshake = pageHandshake(bridge.secret);
  client.socket.send(handshake.hello);
  client.socket.send(await handshake.reply(await client.next()));
  expect(await client.next()).toEqual({ ready: true });
  return client;
}

function get(path: string, host = `127.0.0.1:${bridge.port}`) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: bridge.port, path, headers: { Host: host } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the bridge WebSocket', () => {
  it('carries the secret in the URL fragment, never in the path or query', () => {
    const url = new URL(bridge.url);
    expect(url.origin).toBe(bridge.origin);
    expect(url.hostname).toBe('127.0.0.1');
    expect(url.hash).toBe(`#secret=${bridge.secret}`);
    expect(url.pathname + url.search).not.toContain(bridge.secret);
    expect(Buffer.from(bridge.secret, 'base64url')).toHaveLength(32);
  });

  it('round-trips a valid call once the secret is presented', async () => {
    const { socket, next } = await authenticated();
    socket.send(
      JSON.stringify({ id: 7, call: 'products.search', input: { environmentId: 'local-sandbox', searchTerm: 'x' } }),
    );
    expect(await next()).toEqual({
      id: 7,
      ok: true,
      value: { ok: true, value: [{ productId: 1, dmdCode: '123456789012345678', name: 'x', packSize: 28 }] },
    });
  });

  it('forwards core events to authenticated sockets', async () => {
    const { next } = await authenticated();
    const payload = presetEnvironments().map((e) => ({ ...e, ...DEFAULT_SENDING_PACE, running: true }));
    events.emit('environments.changed', payload);
    expect(await next()).toEqual({ event: 'environments.changed', payload });
  });

  it('closes with 1008 when a call comes before the secret', async () => {
    const { socket, closed } = await open();
    socket.send(JSON.stringify({ id: 1, call: 'app.info', input: {} }));
    expect((await closed).code).toBe(POLICY_VIOLATION);
  });

  it('closes with 1008 on a proof made with a wrong secret, and answers nothing but its challenge', async () => {
    const { socket, closed, next } = await open();
    const handshake = pageHandshake(`${bridge.secret}x`);
    socket.send(handshake.hello);
    const challenge = await next();
    let answered = false;
    void next().then(() => (answered = true));
    socket.send(await handshake.reply(challenge, { verify: false }));
    socket.send(JSON.stringify({ id: 1, call: 'app.info', input: {} }));
    expect((await closed).code).toBe(POLICY_VIOLATION);
    expect(answered).toBe(false);
  });

  it('closes with 1008 on the secret itself (it is never to be sent), and answers nothing', async () => {
    const { socket, closed, next } = await open();
    let answered = false;
    void next().then(() => (answered = true));
    socket.send(JSON.stringify({ secret: bridge.secret }));
    expect((await closed).code).toBe(POLICY_VIOLATION);
    expect(answered).toBe(false);
  });

  it('proves itself with the secret, never sending it, so a page can tell it from another program', async () => {
    const { socket, next } = await open();
    const handshake = pageHandshake(bridge.secret);
    socket.send(handshake.hello);
    const challenge = await next();
    expect(JSON.stringify(challenge)).not.toContain(bridge.secret);
    // reply() checks the bridge's proof against the page's nonce: it throws if the bridge could not make it.
    socket.send(await handshake.reply(challenge));
    expect(await next()).toEqual({ ready: true });
  });

  it('refuses an upgrade from a foreign Origin', async () => {
    await expect(open({ Origin: 'http://evil.example' })).rejects.toThrow('HTTP 403');
    await expect(open({ Origin: `http://localhost:${bridge.port + 1}` })).rejects.toThrow('HTTP 403');
    await expect(open({})).rejects.toThrow('HTTP 403');
  });

  it('refuses an upgrade whose Host is not the bridge (DNS rebinding)', async () => {
    await expect(open({ Origin: bridge.origin, Host: `rebind.example:${bridge.port}` })).rejects.toThrow('HTTP 403');
    await expect(open({ Origin: bridge.origin, Host: '127.0.0.1' })).rejects.toThrow('HTTP 403');
  });

  it('refuses an upgrade on any other path', async () => {
    const socket = new WebSocket(`ws://127.0.0.1:${bridge.port}/elsewhere`, { headers: { Origin: bridge.origin } });
    opened.push(socket);
    const status = await new Promise<number>((resolve) =>
      socket.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)),
    );
    expect(status).toBe(404);
  });

  it('survives clients that reset the connection while their upgrade is being refused (any local process can)', async () => {
    const attempts = Array.from(
      { length: 200 },
      (_, i) =>
        new Promise<void>((resolve) => {
          const client = connect(bridge.port, '127.0.0.1', () => {
            const origin = i % 2 === 0 ? 'http://evil.example' : bridge.origin;
            const path = i % 4 < 2 ? BRIDGE_SOCKET_PATH : '/elsewhere';
            client.write(
              `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${bridge.port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
                `Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nOrigin: ${origin}\r\n\r\n`,
            );
            client.resetAndDestroy();
          });
          client.on('error', () => {});
          client.on('close', () => resolve());
        }),
    );
    await Promise.all(attempts);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const { socket, next } = await authenticated();
    socket.send(JSON.stringify({ id: 10, call: 'app.info', input: {} }));
    expect(await next()).toMatchObject({ id: 10, ok: true });
  });

  it('closes the socket on a message over the size limit', async () => {
    const { socket, closed } = await authenticated();
    socket.send(
      JSON.stringify({ id: 1, call: 'products.search', input: { searchTerm: 'x'.repeat(MAX_MESSAGE_BYTES) } }),
    );
    expect((await closed).code).toBe(1009);
  });

  it('refuses an input nested deeper than any call takes before it reaches the core, and carries on', async () => {
    const { socket, next } = await authenticated();
    // 100,000 levels in 200 KB: under the size limit, but beyond what JSON.stringify (the core host's channel) can
    // serialise, so relaying it would throw in the bridge host.
    const depth = 100_000;
    const deep = `{"id":8,"call":"products.search","input":{"environmentId":"local-sandbox","searchTerm":${'['.repeat(depth)}${']'.repeat(depth)}}}`;
    const before = relayed.length;
    socket.send(deep);
    const refused = (await next()) as { id: unknown; ok: unknown; error: { code: string; message: string } };
    expect(refused).toMatchObject({ id: 8, ok: false, error: { code: 'invalid-input' } });
    expect(refused.error.message).toContain(`nested more than ${MAX_INPUT_DEPTH} levels deep`);
    expect(relayed.length).toBe(before);
    socket.send(JSON.stringify({ id: 9, call: 'app.info', input: {} }));
    expect(await next()).toMatchObject({ id: 9, ok: true });
  });

  it('answers an invalid envelope with a clear error, keeping the id when there is one', async () => {
    const { socket, next } = await authenticated();
    socket.send('not json');
    const broken = (await next()) as { id: unknown; ok: unknown; error: { code: string; message: string } };
    expect(broken).toMatchObject({ id: null, ok: false, error: { code: 'invalid-input' } });
    expect(broken.error.message).toContain('"call"');
    socket.send(JSON.stringify({ id: 3, name: 'app.info' }));
    expect(await next()).toMatchObject({ id: 3, ok: false, error: { code: 'invalid-input' } });
    socket.send(JSON.stringify({ id: 4, call: 'nope', input: {} }));
    expect(await next()).toMatchObject({ id: 4, ok: false, error: { code: 'unknown-call' } });
    socket.send(JSON.stringify({ id: 5, call: 'products.search', input: { environmentId: 'local-sandbox' } }));
    expect(await next()).toMatchObject({
      id: 5,
      ok: false,
      error: { code: 'invalid-input', issues: [expect.objectContaining({ path: 'searchTerm' })] },
    });
  });
});

describe('the bridge static files', () => {
  it('serves the renderer with its content type and a CSP header', async () => {
    const index = await get('/');
    expect(index.status).toBe(200);
    expect(index.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(index.headers['content-security-policy']).toContain("script-src 'self'");
    expect(index.headers['content-security-policy']).toContain(`ws://127.0.0.1:${bridge.port}`);
    expect(index.body).toContain('<title>Rx Batch</title>');
    const script = await get('/assets/app.js');
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.headers['x-content-type-options']).toBe('nosniff');
  });

  it('never serves a file outside the renderer folder', async () => {
    for (const path of [
      '/../outside.txt',
      '/assets/../../outside.txt',
      '/%2e%2e/outside.txt',
      '/..%2foutside.txt',
      '/assets/..%5c..%5coutside.txt',
      '/link.txt',
      '/%00index.html',
    ]) {
      const response = await get(path);
      expect(response.status, path).toBe(404);
      expect(response.body, path).not.toContain('must never be served');
    }
  });

  it('refuses static requests for a foreign Host', async () => {
    expect((await get('/', `rebind.example:${bridge.port}`)).status).toBe(403);
    expect((await get('/', `localhost:${bridge.port}`)).status).toBe(200);
  });
});
