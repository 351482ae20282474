import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { deviceSignInStartSchema } from '../../../shared/signin-views.js';
import { AuthSession } from './auth-session.js';
import { MemorySecretStore } from '../platform/secret-store.js';

/**
 * Finding 10 of docs/security.md: the page an admin is sent to for device sign-in comes from the identity server;
 * it must be https (or plain http on this computer), never a plain-http page elsewhere or a javascript: link.
 * A stand-in identity server answers discovery and the device authorization request with the page under test.
 */

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

async function identityNaming(verificationUri: string): Promise<string> {
  let issuer = '';
  server = createServer((request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    if (request.url === '/.well-known/openid-configuration') {
      response.end(
        JSON.stringify({
          issuer,
          token_endpoint: `${issuer}/token`,
          device_authorization_endpoint: `${issuer}/device`,
          grant_types_supported: ['urn:ietf:params:oauth:grant-type:device_code'],
        }),
      );
    } else {
      response.end(
        JSON.stringify({
          device_code: 'd',
          user_code: 'ABCD-EFGH',
          verification_uri: verificationUri,
          expires_in: 600,
          interval: 5,
        }),
      );
    }
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return issuer;
}

function deviceSession(issuer: string): AuthSession {
  return new AuthSession(
    {
      environmentId: 'people',
      issuer,
      apiBaseUrl: 'https://orders.example/',
      clientId: 'c',
      grant: 'device',
      scopes: ['s'],
    },
    { secrets: new MemorySecretStore() },
  );
}

describe('the device sign-in page', () => {
  it.each(['http://evil.example/device', 'javascript:alert(1)', 'file:///etc/passwd'])(
    'is refused when the identity server names %s',
    async (page) => {
      const session = deviceSession(await identityNaming(page));
      await expect(session.startDeviceLogin()).rejects.toMatchObject({ code: 'insecure-verification-uri' });
    },
  );

  it('is accepted on https, and on plain http on this computer', async () => {
    for (const page of ['https://id.example/device', 'http://127.0.0.1:9/device']) {
      const login = await deviceSession(await identityNaming(page)).startDeviceLogin();
      expect(login.verificationUri).toBe(page);
      login.cancel();
      await login.result;
      await new Promise<void>((resolve) => server?.close(() => resolve()));
      server = undefined;
    }
  });

  it('crosses the contract only as such a link', () => {
    const start = { userCode: 'A', verificationUriComplete: null, expiresAt: new Date(0).toISOString(), interval: 5 };
    for (const bad of ['http://evil.example/device', 'javascript:alert(1)', 'data:text/html,x'])
      expect(deviceSignInStartSchema.safeParse({ ...start, verificationUri: bad }).success, bad).toBe(false);
    for (const good of ['https://id.example/device', 'http://localhost:4000/device'])
      expect(deviceSignInStartSchema.safeParse({ ...start, verificationUri: good }).success, good).toBe(true);
  });
});
