import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemorySecretStore } from '../platform/secret-store.js';
import { AuthSession } from './auth-session.js';

/**
 * Finding 64: an identity server whose status line had a control character or DEL in its reason phrase
 * (`HTTP/1.1 200 O\x01K`, which Node's parser passes) made the bounded fetch throw building its Response (the Fetch
 * standard refuses such a statusText): every answer of that server was "could not reach", so `env add --unverified`
 * kept a secret the server had answered for, unchecked, and a sign-in never worked. A raw loopback server.
 */

let server: Server;
let issuer = '';

beforeAll(async () => {
  server = createServer((socket) => {
    let request = '';
    socket.on('data', (chunk) => {
      request += chunk.toString('latin1');
      if (!request.includes('\r\n\r\n')) return;
      const path = /^[A-Z]+ (\S+)/.exec(request)?.[1] ?? '/';
      const body =
        path === '/.well-known/openid-configuration'
          ? JSON.stringify({ issuer, token_endpoint: `${issuer}/token`, grant_types_supported: ['client_credentials'] })
          : JSON.stringify({ access_token: 'at-1', token_type: 'Bearer', expires_in: 300 });
      socket.end(
        `HTTP/1.1 200 O\x01K\x7f\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
          `connection: close\r\n\r\n${body}`,
      );
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('an identity server answer whose reason phrase a Response cannot hold', () => {
  it('is read for what it says: the discovery and the token answer are used', async () => {
    const s = new AuthSession(
      {
        environmentId: 'env',
        issuer,
        apiBaseUrl: 'http://127.0.0.1:4321/',
        clientId: 'client',
        grant: 'client_credentials',
        scopes: [],
      },
      { secrets: new MemorySecretStore() },
    );
    expect((await s.checkDiscovery()).reachable).toBe(true);
    await s.signInWithClientCredentials('the-secret');
    expect(s.status().signedIn).toBe(true);
  });
});
