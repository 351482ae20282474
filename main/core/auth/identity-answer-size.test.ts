import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MemorySecretStore } from '../platform/secret-store.js';
import { AuthSession } from './auth-session.js';
import { MAX_IDENTITY_RESPONSE_BYTES } from './bounded-fetch.js';
import { authSecretKeys } from './token-record.js';

/**
 * What an identity server's answer may cost (docs/security.md, finding 58): openid-client reads each answer whole
 * with `response.json()`, so one that never ended held gigabytes of the core until the 15 s timeout. Each answer is
 * now read up to MAX_IDENTITY_RESPONSE_BYTES and refused past it, decoded bytes counted.
 */

type Answer = 'normal' | 'padded' | 'endless' | 'gzip-bomb' | 'gzip-normal';

const STREAM_LIMIT = 64 * 1024 * 1024;
let server: Server;
let issuer = '';
let discoveryAnswer: Answer = 'normal';
let tokenAnswer: Answer = 'normal';
/** Bytes of the last streamed answer the server got onto the connection before the client went away. */
let streamed = 0;

const padded = (fields: Record<string, unknown>, bytes: number) =>
  JSON.stringify({ ...fields, padding: 'x'.repeat(bytes) });

/** An answer that goes on until STREAM_LIMIT or until the client stops reading, counting what it wrote. */
function stream(res: ServerResponse): void {
  streamed = 0;
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write('{"access_token":"');
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  const pump = () => {
    while (streamed < STREAM_LIMIT) {
      streamed += chunk.length;
      if (!res.write(chunk)) return;
    }
    res.end('"}');
  };
  res.on('drain', pump);
  res.on('close', () => res.off('drain', pump));
  pump();
}

function answer(res: ServerResponse, kind: Answer, fields: Record<string, unknown>): void {
  if (kind === 'endless') return stream(res);
  if (kind === 'gzip-bomb' || kind === 'gzip-normal') {
    const text = kind === 'gzip-bomb' ? padded(fields, 8 * 1024 * 1024) : JSON.stringify(fields);
    res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    res.end(gzipSync(text));
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(kind === 'padded' ? padded(fields, 8 * 1024 * 1024) : JSON.stringify(fields));
}

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    const path = new URL(req.url ?? '/', issuer).pathname;
    if (path === '/.well-known/openid-configuration') {
      return answer(res, discoveryAnswer, {
        issuer,
        token_endpoint: `${issuer}/token`,
        grant_types_supported: ['client_credentials'],
      });
    }
    if (path === '/token') {
      return answer(res, tokenAnswer, { access_token: 'at-1', token_type: 'Bearer', expires_in: 300 });
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  discoveryAnswer = 'normal';
  tokenAnswer = 'normal';
});

function session(secrets = new MemorySecretStore()): AuthSession {
  return new AuthSession(
    {
      environmentId: 'env',
      issuer,
      apiBaseUrl: 'http://127.0.0.1:4321/',
      clientId: 'client',
      grant: 'client_credentials',
      scopes: [],
    },
    { secrets },
  );
}

const TOO_LARGE = /larger than 1 MiB: it was not read/;

describe('an identity server answer larger than the limit', () => {
  it('a discovery document of 8 MB is refused, and the connection check says why', async () => {
    discoveryAnswer = 'padded';
    const report = await session().checkDiscovery();
    expect(report.reachable).toBe(false);
    expect(report.message).toMatch(TOO_LARGE);
  });

  it('a token answer that does not end is read no further than the limit; the secret is not kept', async () => {
    tokenAnswer = 'endless';
    const secrets = new MemorySecretStore();
    const s = session(secrets);
    // The server answered: not an outage (which `env add --unverified` would take as leave to keep the secret).
    await expect(s.signInWithClientCredentials('the-secret')).rejects.toMatchObject({
      code: 'unusable-answer',
      message: expect.stringMatching(TOO_LARGE) as unknown,
    });
    // What the client read, plus what the sockets' buffers took before it stopped reading.
    await expect.poll(() => streamed).toBeGreaterThan(MAX_IDENTITY_RESPONSE_BYTES);
    expect(streamed).toBeLessThan(16 * 1024 * 1024);
    expect(s.status().signedIn).toBe(false);
    expect(await secrets.get(authSecretKeys('env').clientSecret)).toBeNull();
  }, 20_000);

  it('a small gzip answer that inflates past the limit is refused by its decoded size', async () => {
    tokenAnswer = 'gzip-bomb';
    await expect(session().signInWithClientCredentials('the-secret')).rejects.toThrow(TOO_LARGE);
  });

  it('a refresh answered past the limit keeps the sign-in (unreachable, tried again later)', async () => {
    const s = session();
    await s.signInWithClientCredentials('the-secret');
    tokenAnswer = 'padded';
    expect(await s.refresh()).toBe('unreachable');
    expect(s.status().signedIn).toBe(true);
  });
});

describe('answers within the limit', () => {
  it('are read as before, compressed ones too', async () => {
    discoveryAnswer = 'gzip-normal';
    tokenAnswer = 'gzip-normal';
    const s = session();
    await s.signInWithClientCredentials('the-secret');
    expect(s.status().signedIn).toBe(true);
    expect(await s.getAccessToken('http://127.0.0.1:4321')).toBe('at-1');
  });
});
