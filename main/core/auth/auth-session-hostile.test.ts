import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MemorySecretStore } from '../platform/secret-store.js';
import { AuthSession, type AuthConfig } from './auth-session.js';
import { startHostileIdentity, type HostileIdentity } from './testing/hostile-identity.js';

/**
 * AuthSession against an identity server that misbehaves (a scripted one on loopback): where its discovery
 * document sends credentials, and what its token and device answers say.
 */

const API = 'http://127.0.0.1:4321/';
let idp: HostileIdentity;
let elsewhere: HostileIdentity;

beforeAll(async () => {
  idp = await startHostileIdentity();
  elsewhere = await startHostileIdentity();
});
afterAll(async () => {
  await idp.close();
  await elsewhere.close();
});
beforeEach(() => {
  idp.requests.length = 0;
  elsewhere.requests.length = 0;
  idp.metadata({
    token_endpoint: `${idp.issuer}/token`,
    device_authorization_endpoint: `${idp.issuer}/device/auth`,
    revocation_endpoint: undefined,
  });
});

function session(grant: AuthConfig['grant'], secrets = new MemorySecretStore()): AuthSession {
  return new AuthSession(
    { environmentId: 'env', issuer: idp.issuer, apiBaseUrl: API, clientId: 'client', grant, scopes: ['s'] },
    { secrets },
  );
}

describe('a discovery document that sends credentials to another origin', () => {
  it.each([
    ['another port of this computer', () => `${elsewhere.issuer}/token`],
    ['another host over plain http', () => 'http://is4.internal:5000/connect/token'],
    ['another host over https', () => 'https://login.elsewhere.example/connect/token'],
  ])('token endpoint on %s: the client secret is not sent, and the error says where it pointed', async (_, where) => {
    idp.metadata({ token_endpoint: where() });
    const signIn = session('client_credentials').signInWithClientCredentials('the-secret');
    await expect(signIn).rejects.toMatchObject({ code: 'foreign-endpoint' });
    await expect(signIn).rejects.toThrow(/sends token endpoint requests to .*, not to http:\/\/127\.0\.0\.1:\d+/);
    expect(elsewhere.requests).toEqual([]);
    expect(idp.requests).toEqual([]);
  });

  it('device authorization on another origin: no device sign-in starts there', async () => {
    idp.metadata({ device_authorization_endpoint: `${elsewhere.issuer}/device/auth` });
    await expect(session('device').startDeviceLogin()).rejects.toMatchObject({ code: 'foreign-endpoint' });
    expect(elsewhere.requests).toEqual([]);
  });

  it('a revocation endpoint elsewhere refuses discovery too; the connection check says why', async () => {
    idp.metadata({ revocation_endpoint: `${elsewhere.issuer}/revoke` });
    const report = await session('client_credentials').checkDiscovery();
    expect(report).toMatchObject({ reachable: false });
    expect(report.message).toMatch(/revocation endpoint requests to http:\/\/127\.0\.0\.1:\d+\/revoke/);
  });

  it('endpoints on the issuer itself are used', async () => {
    const s = session('client_credentials');
    await s.signInWithClientCredentials('the-secret');
    expect(s.status().signedIn).toBe(true);
    expect(idp.requests.map((request) => [request.path, request.form.grant_type])).toEqual([
      ['/token', 'client_credentials'],
    ]);
  });
});
