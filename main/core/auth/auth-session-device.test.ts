import type { Browser } from '@playwright/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORDER_SERVICE_SCOPES } from '../../../shared/environment.js';
import { completeDevicePages } from '../../../sandbox/identity/device-pages-driver.js';
import { startIdentity, type RunningIdentity } from '../../../sandbox/identity/index.js';
import { tokenRequest } from '../../../sandbox/identity/test-http.js';
import { launchChromium } from '../../../test/support/browser.js';
import { createLogger } from '../platform/logger.js';
import { AuthError } from './auth-error.js';
import { AuthSession, type AuthConfig, type AuthDeps, type DeviceLogin } from './auth-session.js';
import { MemorySecretStore } from '../platform/secret-store.js';
import { authSecretKeys, storedTokensSchema } from './token-record.js';

const API = 'http://127.0.0.1:4321/';
let identity: RunningIdentity;
let browser: Browser;

beforeAll(async () => {
  [identity, browser] = await Promise.all([startIdentity({ apiAudience: API }), launchChromium()]);
});
afterAll(async () => {
  await Promise.all([identity.close(), browser.close()]);
});

function deviceConfig(on: RunningIdentity = identity, environmentId = 'local-sandbox'): AuthConfig {
  return {
    environmentId,
    issuer: on.issuer,
    apiBaseUrl: 'http://127.0.0.1:1/',
    clientId: on.deviceClient.clientId,
    grant: 'device',
    scopes: [...ORDER_SERVICE_SCOPES],
  };
}

async function approveInBrowser(login: DeviceLogin, decision: 'allow' | 'deny', typeCode = false): Promise<void> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await completeDevicePages(page, {
      url: typeCode ? login.verificationUri : (login.verificationUriComplete ?? ''),
      ...(typeCode ? { userCode: login.userCode } : {}),
      username: identity.user.username,
      password: identity.user.password,
      decision,
    });
  } finally {
    await context.close();
  }
}

async function signedInSession(deps: Partial<AuthDeps> = {}) {
  const secrets = new MemorySecretStore();
  const session = new AuthSession(deviceConfig(), { secrets, ...deps });
  const login = await session.startDeviceLogin();
  await approveInBrowser(login, 'allow');
  expect(await login.result).toEqual({ outcome: 'signed-in' });
  return { session, secrets };
}

describe('AuthSession, device sign-in against the sandbox identity provider', () => {
  it('signs in end to end, keeps, refreshes and resumes the sign-in, and loses it when refresh tokens are revoked', async () => {
    const lines: string[] = [];
    const secrets = new MemorySecretStore();
    const session = new AuthSession(deviceConfig(), { secrets, logger: createLogger('auth', (l) => lines.push(l)) });
    expect(session.status()).toEqual({ signedIn: false, grant: 'device' });

    const login = await session.startDeviceLogin();
    expect(login.userCode).toMatch(/^[A-Z]{4}-[A-Z]{4}$/);
    expect(login.verificationUri).toBe(`${identity.issuer}/device`);
    expect(login.verificationUriComplete).toContain(login.userCode);
    expect(login.interval).toBe(1);
    expect(login.expiresAt).toBeGreaterThan(Date.now());

    await approveInBrowser(login, 'allow');
    expect(await login.result).toEqual({ outcome: 'signed-in' });
    expect(session.status()).toMatchObject({ signedIn: true, grant: 'device', subject: 'sandbox-admin' });

    const token = (await session.getAccessToken()) ?? '';
    expect(await identity.verifyAccessToken(token)).toEqual({
      clientId: identity.deviceClient.clientId,
      scopes: [...ORDER_SERVICE_SCOPES],
      subject: 'sandbox-admin',
    });
    expect(await session.getAccessToken()).toBe(token);

    expect(await session.refresh()).toBe(true);
    const refreshed = (await session.getAccessToken()) ?? '';
    expect(refreshed).not.toBe(token);
    expect((await identity.verifyAccessToken(refreshed))?.subject).toBe('sandbox-admin');

    const resumed = new AuthSession(deviceConfig(), { secrets });
    expect(await resumed.restore()).toMatchObject({ signedIn: true, subject: 'sandbox-admin' });
    expect(await resumed.getAccessToken()).toBe(refreshed);

    await identity.revokeAllRefreshTokens();
    expect(await resumed.refresh()).toBe(false);
    expect(await resumed.getAccessToken()).toBeNull();
    expect(resumed.status().signedIn).toBe(false);
    expect(await secrets.get(authSecretKeys('local-sandbox').tokens)).toBeNull();

    const logged = lines.join('\n');
    expect(logged).toContain('device sign-in ended');
    for (const secret of [token, refreshed, login.userCode]) expect(logged).not.toContain(secret);
  });

  it('works with the plain verification URI and a typed code, and refreshes ahead of expiry', async () => {
    let skewMs = 0;
    const secrets = new MemorySecretStore();
    const session = new AuthSession(deviceConfig(), { secrets, now: () => Date.now() + skewMs });
    const login = await session.startDeviceLogin();
    await approveInBrowser(login, 'allow', true);
    expect(await login.result).toEqual({ outcome: 'signed-in' });

    const first = await session.getAccessToken();
    const { expiresAt } = session.status();
    expect(expiresAt).toBeDefined();
    skewMs = (expiresAt ?? 0) - Date.now() - 30_000; // half a minute before expiry
    const second = await session.getAccessToken();
    expect(second).not.toBe(first);
    expect(await identity.verifyAccessToken(second ?? '')).not.toBeNull();
  });

  it('reports denied when the person clicks Deny', async () => {
    const session = new AuthSession(deviceConfig(), { secrets: new MemorySecretStore() });
    const login = await session.startDeviceLogin();
    await approveInBrowser(login, 'deny');
    expect(await login.result).toEqual({ outcome: 'denied' });
    expect(session.status().signedIn).toBe(false);
    expect(await session.getAccessToken()).toBeNull();
  });

  it('reports expired when nobody approves in time', async () => {
    const shortLived = await startIdentity({ apiAudience: API, deviceCodeTtlSeconds: 2 });
    try {
      const session = new AuthSession(deviceConfig(shortLived), { secrets: new MemorySecretStore() });
      const login = await session.startDeviceLogin();
      expect(await login.result).toEqual({ outcome: 'expired' });
      expect(session.status().signedIn).toBe(false);
    } finally {
      await shortLived.close();
    }
  });

  it('reports cancelled after cancel(), and a later approval does not sign in', async () => {
    const session = new AuthSession(deviceConfig(), { secrets: new MemorySecretStore() });
    const login = await session.startDeviceLogin();
    login.cancel();
    expect(await login.result).toEqual({ outcome: 'cancelled' });
    await approveInBrowser(login, 'allow');
    expect(session.status().signedIn).toBe(false);
  });

  it('signs out: forgets the tokens and revokes the refresh token at the server', async () => {
    const { session, secrets } = await signedInSession();
    const saved = storedTokensSchema.parse(
      JSON.parse((await secrets.get(authSecretKeys('local-sandbox').tokens)) ?? ''),
    );
    expect(saved.refreshToken).toBeTruthy();

    await session.signOut();
    expect(session.status().signedIn).toBe(false);
    expect(await session.getAccessToken()).toBeNull();
    expect(await session.refresh()).toBe(false);
    expect(await new AuthSession(deviceConfig(), { secrets }).restore()).toMatchObject({ signedIn: false });

    const reuse = await tokenRequest(identity.issuer, {
      grant_type: 'refresh_token',
      client_id: identity.deviceClient.clientId,
      refresh_token: saved.refreshToken ?? '',
    });
    expect(reuse.body.error).toBe('invalid_grant');
  });

  it('sends one refresh for concurrent callers, so the rotating refresh token is never replayed', async () => {
    const { session } = await signedInSession();
    const before = await session.getAccessToken();
    expect(await Promise.all([session.refresh(), session.refresh(), session.refresh()])).toEqual([true, true, true]);
    const after = await session.getAccessToken();
    expect(after).not.toBe(before);
    // A replayed refresh token would have made the server revoke the whole grant.
    expect(await session.refresh()).toBe(true);
    expect(await identity.verifyAccessToken((await session.getAccessToken()) ?? '')).not.toBeNull();
  });

  it('keeps environments apart and ignores a saved sign-in made with other settings', async () => {
    const { secrets } = await signedInSession();
    const other = new AuthSession(deviceConfig(identity, 'another-env'), { secrets });
    expect(await other.getAccessToken()).toBeNull();
    const editedClient = new AuthSession({ ...deviceConfig(), clientId: 'someone-else' }, { secrets });
    expect(await editedClient.restore()).toMatchObject({ signedIn: false });
  });
});

describe('AuthSession discovery and issuer checks', () => {
  it('reports what the identity server offers', async () => {
    const session = new AuthSession(deviceConfig(), { secrets: new MemorySecretStore() });
    expect(await session.checkDiscovery()).toEqual({
      reachable: true,
      deviceAuthorization: true,
      clientCredentials: true,
      message: 'Identity server reachable; it offers device sign-in and client credentials.',
    });
  });

  it('reports an unreachable identity server', async () => {
    const gone = await startIdentity({ apiAudience: API });
    const issuer = gone.issuer;
    await gone.close();
    const session = new AuthSession({ ...deviceConfig(), issuer }, { secrets: new MemorySecretStore() });
    const report = await session.checkDiscovery();
    expect(report).toMatchObject({ reachable: false, deviceAuthorization: false, clientCredentials: false });
    expect(report.message).toMatch(/^Could not reach the identity server/);
    await expect(session.startDeviceLogin()).rejects.toMatchObject({ code: 'unreachable' });
  });

  it('refuses a plain-http issuer that is not this computer, before any request', async () => {
    const session = new AuthSession(
      { ...deviceConfig(), issuer: 'http://sandbox-is4.cloudrx.co.uk' },
      { secrets: new MemorySecretStore() },
    );
    const report = await session.checkDiscovery();
    expect(report.reachable).toBe(false);
    expect(report.message).toMatch(/plain http/);
    const err: unknown = await session.startDeviceLogin().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthError);
    expect(err).toMatchObject({ code: 'insecure-issuer' });
  });

  it('refuses the wrong kind of sign-in for the environment', async () => {
    const session = new AuthSession(deviceConfig(), { secrets: new MemorySecretStore() });
    await expect(session.signInWithClientCredentials('x')).rejects.toMatchObject({ code: 'wrong-grant' });
  });
});
