import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MemorySecretStore } from '../platform/secret-store.js';
import { AuthSession } from './auth-session.js';
import { startHostileIdentity, tokenAnswer, type HostileIdentity } from './testing/hostile-identity.js';
import { authSecretKeys } from './token-record.js';

/**
 * An access token goes out as `Authorization: Bearer <token>`, so one with a character a header cannot carry is
 * no sign-in (docs/security.md, finding 59): kept, every request the client made with it was refused by Node before
 * it left, and the outbox set each order aside in doubt.
 */

let idp: HostileIdentity;
beforeAll(async () => {
  idp = await startHostileIdentity();
});
afterAll(() => idp.close());
beforeEach(() => idp.onToken(() => tokenAnswer()));

function session(secrets = new MemorySecretStore()): AuthSession {
  return new AuthSession(
    {
      environmentId: 'env',
      issuer: idp.issuer,
      apiBaseUrl: 'http://127.0.0.1:4321/',
      clientId: 'client',
      grant: 'client_credentials',
      scopes: [],
    },
    { secrets },
  );
}

const UNSENDABLE = /access token with characters an HTTP header cannot carry/;

describe('an access token a header cannot carry', () => {
  it.each([
    ['a line break', 'at-1\r\nX-Injected: 1'],
    ['a character past U+00FF', 'at-\u20ac'],
    ['a space', 'at 1'],
    ['a NUL', 'at\u00001'],
  ])('with %s is refused at sign-in, saying so, and the secret is not kept', async (_, token) => {
    idp.onToken(() => tokenAnswer({ access_token: token }));
    const secrets = new MemorySecretStore();
    const s = session(secrets);
    await expect(s.signInWithClientCredentials('the-secret')).rejects.toThrow(UNSENDABLE);
    expect(s.status().signedIn).toBe(false);
    expect(await secrets.get(authSecretKeys('env').clientSecret)).toBeNull();
  });

  it('given by a refresh, signs out (a person must look), rather than being handed out', async () => {
    const s = session();
    await s.signInWithClientCredentials('the-secret');
    idp.onToken(() => tokenAnswer({ access_token: 'at-2\n' }));
    expect(await s.refresh()).toBe(false);
    expect(s.status().signedIn).toBe(false);
  });

  it('a JWT and other visible ASCII tokens are taken as before', async () => {
    const jwt = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJjbGllbnQifQ.c2ln-_~+/==';
    idp.onToken(() => tokenAnswer({ access_token: jwt }));
    const s = session();
    await s.signInWithClientCredentials('the-secret');
    expect(await s.getAccessToken('http://127.0.0.1:4321')).toBe(jwt);
  });
});
