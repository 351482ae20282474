import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MemorySecretStore } from '../platform/secret-store.js';
import {
  AuthSession,
  MAX_DEVICE_CODE_LIFETIME_SECONDS,
  MAX_POLL_INTERVAL_SECONDS,
  MIN_POLL_INTERVAL_SECONDS,
  type AuthConfig,
} from './auth-session.js';
import { oauthError, startHostileIdentity, tokenAnswer, type HostileIdentity } from './testing/hostile-identity.js';
import { ASSUMED_LIFETIME_SECONDS, authSecretKeys, MAX_LIFETIME_SECONDS } from './token-record.js';

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
  idp.onToken(() => tokenAnswer());
  idp.onDevice();
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

describe('token answers out of the ordinary', () => {
  const signedIn = async (fields: Record<string, unknown>) => {
    idp.onToken(() => tokenAnswer(fields));
    const s = session('client_credentials');
    await s.signInWithClientCredentials('the-secret');
    return s;
  };
  const tokenRequests = () => idp.requests.filter((request) => request.path === '/token').length;

  it.each([
    ['expires_in 0', { expires_in: 0 }],
    ['no expires_in', { expires_in: undefined }],
    ['expires_in as a string', { expires_in: '3600' }],
  ])('%s: the token is used for its assumed lifetime, not refreshed before every request', async (_, fields) => {
    const s = await signedIn(fields);
    const first = await s.getAccessToken();
    expect(await s.getAccessToken()).toBe(first);
    expect(await s.getAccessToken()).toBe(first);
    expect(tokenRequests()).toBe(1);
    expect(s.status().expiresAt).toBeGreaterThan(Date.now() + (ASSUMED_LIFETIME_SECONDS - 10) * 1000);
  });

  it('a lifetime of 10^15 s is taken as a day, so the expiry stays a date', async () => {
    const s = await signedIn({ expires_in: 1e15 });
    const expiresAt = s.status().expiresAt ?? 0;
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + MAX_LIFETIME_SECONDS * 1000);
    expect(new Date(expiresAt).toISOString()).toMatch(/^\d{4}-/);
  });

  it('a DPoP-bound token is refused at sign-in, saying so, and the secret is not kept', async () => {
    idp.onToken(() => tokenAnswer({ token_type: 'DPoP' }));
    const secrets = new MemorySecretStore();
    const s = session('client_credentials', secrets);
    await expect(s.signInWithClientCredentials('the-secret')).rejects.toThrow(
      /issued a dpop token.*Bearer tokens only/i,
    );
    expect(s.status().signedIn).toBe(false);
    expect(await secrets.get(authSecretKeys('env').clientSecret)).toBeNull();
  });

  it.each([
    [
      'a 200 without an access token',
      'unusable-answer',
      { status: 200, body: { token_type: 'Bearer', expires_in: 300 } },
    ],
    ['a 200 that is not JSON', 'unusable-answer', { status: 200, body: '<html>Welcome</html>' }],
    ['a DPoP token', 'unusable-answer', tokenAnswer({ token_type: 'DPoP' })],
    // A gateway's fault page is an outage, to wait out, not the server's answer.
    ['a 502 page', 'unreachable', { status: 502, body: '<html>Bad gateway</html>' }],
  ])('a sign-in answered with %s fails as %s, keeping nothing', async (_, code, answer) => {
    idp.onToken(() => answer);
    const secrets = new MemorySecretStore();
    const s = session('client_credentials', secrets);
    await expect(s.signInWithClientCredentials('the-secret')).rejects.toMatchObject({ code });
    expect(await secrets.get(authSecretKeys('env').clientSecret)).toBeNull();
    expect(await secrets.get(authSecretKeys('env').tokens)).toBeNull();
  });

  it('a refresh answered with a DPoP token signs out (nothing usable), rather than sending it as Bearer', async () => {
    const s = await signedIn({});
    idp.onToken(() => tokenAnswer({ token_type: 'DPoP' }));
    expect(await s.refresh()).toBe(false);
    expect(s.status().signedIn).toBe(false);
  });
});

describe('device sign-in against odd answers', () => {
  it('an interval of 1 ms is polled no faster than once a second', async () => {
    idp.onDevice(() => ({
      status: 200,
      body: {
        device_code: 'dc',
        user_code: 'WXYZ-1234',
        verification_uri: `${idp.issuer}/device`,
        expires_in: 60,
        interval: 0.001,
      },
    }));
    let polls = 0;
    idp.onToken(() => ((polls += 1) < 3 ? oauthError('authorization_pending') : tokenAnswer()));
    const s = session('device');
    const login = await s.startDeviceLogin();
    expect(login.interval).toBe(MIN_POLL_INTERVAL_SECONDS);
    expect(await login.result).toEqual({ outcome: 'signed-in' });
    const at = idp.requests.filter((request) => request.path === '/token').map((request) => request.at);
    expect(at).toHaveLength(3);
    for (let i = 1; i < at.length; i += 1) expect(at[i]! - at[i - 1]!).toBeGreaterThan(900);
  });

  it('a code said to live for 10^9 s, polled every 10^9 s: waited on for an hour at most, polled every minute', async () => {
    idp.onDevice(() => ({
      status: 200,
      body: {
        device_code: 'dc',
        user_code: 'WXYZ-1234',
        verification_uri: `${idp.issuer}/device`,
        expires_in: 1e9,
        interval: 1e9,
      },
    }));
    const before = Date.now();
    const login = await session('device').startDeviceLogin();
    login.cancel();
    expect(login.interval).toBe(MAX_POLL_INTERVAL_SECONDS);
    expect(login.expiresAt - before).toBeLessThanOrEqual(MAX_DEVICE_CODE_LIFETIME_SECONDS * 1000 + 1_000);
    expect(login.expiresAt - before).toBeGreaterThan(MAX_DEVICE_CODE_LIFETIME_SECONDS * 1000 - 1_000);
    expect(await login.result).toEqual({ outcome: 'cancelled' });
  });

  it('a refused poll (expired_token, access_denied) ends the sign-in as such (no further polls)', async () => {
    for (const [error, outcome] of [
      ['expired_token', 'expired'],
      ['access_denied', 'denied'],
    ] as const) {
      idp.onToken(() => oauthError(error));
      const login = await session('device').startDeviceLogin();
      expect(await login.result, error).toEqual({ outcome });
    }
  });
});
