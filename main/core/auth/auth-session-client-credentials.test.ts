import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORDER_SERVICE_SCOPES } from '../../../shared/environment.js';
import { startIdentity, type RunningIdentity } from '../../../sandbox/identity/index.js';
import { createLogger } from '../platform/logger.js';
import { AuthSession, type AuthConfig } from './auth-session.js';
import { MemorySecretStore } from '../platform/secret-store.js';
import { authSecretKeys } from './token-record.js';

const API = 'http://127.0.0.1:4321/';
const KEYS = authSecretKeys('service-env');
let identity: RunningIdentity;

beforeAll(async () => {
  identity = await startIdentity({ apiAudience: API });
});
afterAll(async () => {
  await identity.close();
});

function serviceConfig(on: RunningIdentity = identity): AuthConfig {
  return {
    environmentId: 'service-env',
    issuer: on.issuer,
    apiBaseUrl: API,
    clientId: on.serviceClient.clientId,
    grant: 'client_credentials',
    scopes: [...ORDER_SERVICE_SCOPES],
  };
}

describe('AuthSession, client credentials against the sandbox identity provider', () => {
  it('signs in, saves the secret, refreshes with a new token, and never logs secrets', async () => {
    const lines: string[] = [];
    const secrets = new MemorySecretStore();
    const session = new AuthSession(serviceConfig(), { secrets, logger: createLogger('auth', (l) => lines.push(l)) });
    await session.signInWithClientCredentials(identity.serviceClient.clientSecret);

    expect(session.status()).toMatchObject({ signedIn: true, grant: 'client_credentials' });
    expect(session.status().subject).toBeUndefined();
    // Stored bound to the identity server, the API origin and the client it was given for.
    expect(JSON.parse((await secrets.get(KEYS.clientSecret)) ?? '{}')).toEqual({
      version: 1,
      issuer: identity.issuer,
      apiOrigin: new URL(API).origin,
      clientId: identity.serviceClient.clientId,
      secret: identity.serviceClient.clientSecret,
    });

    const token = (await session.getAccessToken()) ?? '';
    expect(await identity.verifyAccessToken(token)).toEqual({
      clientId: identity.serviceClient.clientId,
      scopes: [...ORDER_SERVICE_SCOPES],
    });
    expect(await session.refresh()).toBe(true);
    const renewed = (await session.getAccessToken()) ?? '';
    expect(renewed).not.toBe(token);
    expect(await identity.verifyAccessToken(renewed)).not.toBeNull();

    const logged = lines.join('\n');
    expect(logged).toContain('signed in with client credentials');
    for (const secret of [token, renewed, identity.serviceClient.clientSecret]) expect(logged).not.toContain(secret);
  });

  it('resumes in a new session, stays signed out after sign-out, and signs in again from the saved secret', async () => {
    const secrets = new MemorySecretStore();
    await new AuthSession(serviceConfig(), { secrets }).signInWithClientCredentials(
      identity.serviceClient.clientSecret,
    );

    const second = new AuthSession(serviceConfig(), { secrets });
    expect(await identity.verifyAccessToken((await second.getAccessToken()) ?? '')).not.toBeNull();

    await second.signOut();
    expect(await second.getAccessToken()).toBeNull();
    expect(await second.refresh()).toBe(false);
    expect(second.status().signedIn).toBe(false);

    await second.signInWithClientCredentials();
    expect(await identity.verifyAccessToken((await second.getAccessToken()) ?? '')).not.toBeNull();
  });

  it('rejects a wrong secret without saving it, and asks for one when none is saved', async () => {
    const secrets = new MemorySecretStore();
    const session = new AuthSession(serviceConfig(), { secrets });
    await expect(session.signInWithClientCredentials()).rejects.toMatchObject({ code: 'no-secret' });

    const err: unknown = await session.signInWithClientCredentials('wrong-secret').catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'AuthError', code: 'rejected' });
    expect((err as Error).message).toContain('invalid_client');
    expect(await secrets.get(KEYS.clientSecret)).toBeNull();
    expect(session.status().signedIn).toBe(false);
  });

  it('keeps the sign-in when the identity server is unreachable, and uses the still-valid token', async () => {
    const flaky = await startIdentity({ apiAudience: API });
    const secrets = new MemorySecretStore();
    const session = new AuthSession(serviceConfig(flaky), { secrets });
    await session.signInWithClientCredentials(flaky.serviceClient.clientSecret);
    const token = await session.getAccessToken();
    await flaky.close();

    // Not a refusal: the caller tries again later rather than asking for a sign-in.
    expect(await session.refresh()).toBe('unreachable');
    expect(session.status().signedIn).toBe(true);
    expect(await session.getAccessToken()).toBe(token);
    expect(await secrets.get(KEYS.tokens)).not.toBeNull();
  });

  it('signs out when the server refuses the saved secret', async () => {
    const secrets = new MemorySecretStore();
    const session = new AuthSession(serviceConfig(), { secrets });
    await session.signInWithClientCredentials(identity.serviceClient.clientSecret);
    await session.storeClientSecret('rotated-away');
    expect(await session.refresh()).toBe(false);
    expect(session.status().signedIn).toBe(false);
    expect(await session.getAccessToken()).toBeNull();
  });

  it('refuses device sign-in for a client-credentials environment', async () => {
    const session = new AuthSession(serviceConfig(), { secrets: new MemorySecretStore() });
    await expect(session.startDeviceLogin()).rejects.toMatchObject({ code: 'wrong-grant' });
  });
});

describe('AuthSession: sign-in material is bound to its issuer, API origin and client id', () => {
  async function signedIn(secrets = new MemorySecretStore()) {
    const session = new AuthSession(serviceConfig(), { secrets });
    await session.signInWithClientCredentials(identity.serviceClient.clientSecret);
    return { secrets, session };
  }

  it('gives a token only for the API origin it was made for', async () => {
    const { session } = await signedIn();
    const token = await session.getAccessToken(new URL(API).origin);
    expect(await identity.verifyAccessToken(token ?? '')).not.toBeNull();
    for (const elsewhere of ['http://127.0.0.1:2', 'https://127.0.0.1:1', 'http://localhost:1', 'https://evil.example'])
      expect(await session.getAccessToken(elsewhere)).toBeNull();
  });

  it.each([
    ['another API origin', { apiBaseUrl: 'https://api.elsewhere.example/' }],
    ['another identity server', { issuer: 'https://id.elsewhere.example' }],
    ['another client id', { clientId: 'someone-else' }],
  ])('a session for %s finds no sign-in and no secret, and deletes both unread', async (_label, change) => {
    const { secrets } = await signedIn();
    const moved = new AuthSession({ ...serviceConfig(), ...change }, { secrets });
    expect(await moved.getAccessToken()).toBeNull();
    expect(moved.status().signedIn).toBe(false);
    // No secret to send to the new identity server: the admin types it again.
    await expect(moved.signInWithClientCredentials()).rejects.toMatchObject({ code: 'no-secret' });
    expect(await secrets.get(KEYS.tokens)).toBeNull();
    expect(await secrets.get(KEYS.clientSecret)).toBeNull();
  });

  it('does not trust records from before the binding (tokens without an API origin, a bare secret)', async () => {
    const { secrets, session } = await signedIn();
    const token = await session.getAccessToken();
    const stored = JSON.parse((await secrets.get(KEYS.tokens)) ?? '{}') as Record<string, unknown>;
    const { apiOrigin: _dropped, ...unbound } = stored;
    await secrets.set(KEYS.tokens, JSON.stringify({ ...unbound, version: 1 }));
    await secrets.set(KEYS.clientSecret, identity.serviceClient.clientSecret);
    const resumed = new AuthSession(serviceConfig(), { secrets });
    expect(await resumed.getAccessToken()).toBeNull();
    expect(token).not.toBeNull();
    await expect(resumed.signInWithClientCredentials()).rejects.toMatchObject({ code: 'no-secret' });
  });

  it('forgetCredentials deletes tokens and secret without a request to any server', async () => {
    const { secrets, session } = await signedIn();
    await session.forgetCredentials();
    expect(session.status().signedIn).toBe(false);
    expect(await secrets.get(KEYS.tokens)).toBeNull();
    expect(await secrets.get(KEYS.clientSecret)).toBeNull();
    expect(await session.getAccessToken()).toBeNull();
  });
});
