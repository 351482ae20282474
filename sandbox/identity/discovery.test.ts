import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startIdentity, type RunningIdentity } from './index.js';

const API = 'http://127.0.0.1:4321/';
let identity: RunningIdentity;

beforeAll(async () => {
  identity = await startIdentity({ apiAudience: API });
});
afterAll(async () => {
  await identity.close();
});

describe('sandbox identity discovery', () => {
  it('binds loopback and publishes IdentityServer-style endpoints', async () => {
    expect(identity.issuer).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const res = await fetch(`${identity.issuer}/.well-known/openid-configuration`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as Record<string, unknown>;
    expect(doc).toMatchObject({
      issuer: identity.issuer,
      token_endpoint: `${identity.issuer}/connect/token`,
      device_authorization_endpoint: `${identity.issuer}/connect/deviceauthorization`,
      revocation_endpoint: `${identity.issuer}/connect/revocation`,
      jwks_uri: `${identity.issuer}/.well-known/openid-configuration/jwks`,
    });
    expect(doc.grant_types_supported).toEqual(
      expect.arrayContaining(['client_credentials', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code']),
    );
    expect(doc.token_endpoint_auth_methods_supported).toEqual(
      expect.arrayContaining(['client_secret_post', 'client_secret_basic', 'none']),
    );
  });

  it('publishes only public signing keys', async () => {
    const jwks = (await (await fetch(`${identity.issuer}/.well-known/openid-configuration/jwks`)).json()) as {
      keys: Array<Record<string, unknown>>;
    };
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
    for (const secretPart of ['d', 'p', 'q', 'dp', 'dq', 'qi']) expect(jwks.keys[0]).not.toHaveProperty(secretPart);
  });

  it('gives each start its own keys and client secret', async () => {
    const other = await startIdentity({ apiAudience: API });
    try {
      expect(other.issuer).not.toBe(identity.issuer);
      expect(other.serviceClient.clientSecret).not.toBe(identity.serviceClient.clientSecret);
      expect(other.serviceClient.clientId).toBe(identity.serviceClient.clientId);
    } finally {
      await other.close();
    }
  });

  it('rejects nonsense lifetimes', async () => {
    await expect(startIdentity({ apiAudience: API, accessTokenTtlSeconds: 0 })).rejects.toThrow(RangeError);
  });
});
