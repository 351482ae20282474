import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ORDER_SERVICE_SCOPES } from '../../shared/environment.js';
import { createAccessTokenVerifier } from './access-token-verifier.js';
import { startIdentity, type RunningIdentity } from './index.js';
import { basicAuth, jwtPart, tokenRequest } from './test-http.js';

const API = 'http://127.0.0.1:4321/';
const ALL_SCOPES = ORDER_SERVICE_SCOPES.join(' ');
let identity: RunningIdentity;

beforeAll(async () => {
  identity = await startIdentity({ apiAudience: API });
});
afterAll(async () => {
  await identity.close();
});
afterEach(() => {
  vi.useRealTimers();
});

/** Exactly the four fields the public CloudRx authentication page sends, and nothing else. */
function docsShapedRequest(secret = identity.serviceClient.clientSecret, scope = ALL_SCOPES) {
  return tokenRequest(identity.issuer, {
    grant_type: 'client_credentials',
    client_id: identity.serviceClient.clientId,
    client_secret: secret,
    scope,
  });
}

async function serviceToken(): Promise<string> {
  const { status, body } = await docsShapedRequest();
  expect(status).toBe(200);
  return body.access_token ?? '';
}

describe('client credentials at {issuer}/connect/token', () => {
  it('answers a docs-shaped form request with a JWT for the API audience', async () => {
    const { status, body, headers } = await docsShapedRequest();
    expect(status).toBe(200);
    expect(headers.get('cache-control')).toContain('no-store');
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 300, scope: ALL_SCOPES });
    expect(body.refresh_token).toBeUndefined();
    const token = body.access_token ?? '';
    expect(jwtPart(token, 0)).toMatchObject({ typ: 'at+jwt', alg: 'RS256' });
    expect(jwtPart(token, 1)).toMatchObject({
      iss: identity.issuer,
      aud: API,
      client_id: identity.serviceClient.clientId,
      scope: ALL_SCOPES,
    });
    expect(await identity.verifyAccessToken(token)).toEqual({
      clientId: identity.serviceClient.clientId,
      scopes: [...ORDER_SERVICE_SCOPES],
    });
  });

  it('accepts HTTP Basic client authentication', async () => {
    const { status, body } = await tokenRequest(
      identity.issuer,
      { grant_type: 'client_credentials', scope: ALL_SCOPES },
      basicAuth(identity.serviceClient.clientId, identity.serviceClient.clientSecret),
    );
    expect(status).toBe(200);
    expect((await identity.verifyAccessToken(body.access_token ?? ''))?.scopes).toEqual([...ORDER_SERVICE_SCOPES]);
  });

  it('grants only the scopes asked for, space or comma separated', async () => {
    const spaced = await docsShapedRequest(undefined, 'cloudrx_productservice');
    expect((await identity.verifyAccessToken(spaced.body.access_token ?? ''))?.scopes).toEqual([
      'cloudrx_productservice',
    ]);
    const commas = await docsShapedRequest(undefined, 'cloudrx_orderservice,cloudrx_courierservice');
    expect(commas.status).toBe(200);
    expect((await identity.verifyAccessToken(commas.body.access_token ?? ''))?.scopes).toEqual([
      'cloudrx_orderservice',
      'cloudrx_courierservice',
    ]);
  });

  it('refuses a wrong secret or an unknown client with 401 invalid_client', async () => {
    const wrong = await docsShapedRequest('not-the-secret');
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe('invalid_client');
    expect(wrong.body.access_token).toBeUndefined();

    const wrongBasic = await tokenRequest(
      identity.issuer,
      { grant_type: 'client_credentials', scope: ALL_SCOPES },
      basicAuth(identity.serviceClient.clientId, 'not-the-secret'),
    );
    expect(wrongBasic.status).toBe(401);
    expect(wrongBasic.body.error).toBe('invalid_client');
    expect(wrongBasic.headers.get('www-authenticate')).toMatch(/^Basic /);

    const unknown = await tokenRequest(identity.issuer, {
      grant_type: 'client_credentials',
      client_id: 'nobody',
      client_secret: 'x',
    });
    expect(unknown.status).toBe(401);
    expect(unknown.body.error).toBe('invalid_client');
  });

  it('does not let the public device client use client credentials', async () => {
    const { status, body } = await tokenRequest(identity.issuer, {
      grant_type: 'client_credentials',
      client_id: identity.deviceClient.clientId,
      scope: ALL_SCOPES,
    });
    expect(status).toBe(400);
    expect(body).toEqual({
      error: 'invalid_request',
      error_description: 'requested grant type is not allowed for this client',
    });
  });
});

describe('verifyAccessToken', () => {
  it('returns null for a tampered token', async () => {
    const token = await serviceToken();
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const claims = { ...jwtPart(token, 1), scope: `${ALL_SCOPES} admin` };
    const forgedPayload = Buffer.from(JSON.stringify(claims)).toString('base64url');
    expect(await identity.verifyAccessToken(`${header}.${forgedPayload}.${signature}`)).toBeNull();
    const flipped = signature.startsWith('A') ? `B${signature.slice(1)}` : `A${signature.slice(1)}`;
    expect(await identity.verifyAccessToken(`${header}.${payload}.${flipped}`)).toBeNull();
    expect(await identity.verifyAccessToken('not a token')).toBeNull();
    expect(await identity.verifyAccessToken('')).toBeNull();
  });

  it('returns null once the token has expired', async () => {
    const shortLived = await startIdentity({ apiAudience: API, accessTokenTtlSeconds: 60 });
    try {
      const { body } = await tokenRequest(shortLived.issuer, {
        grant_type: 'client_credentials',
        client_id: shortLived.serviceClient.clientId,
        client_secret: shortLived.serviceClient.clientSecret,
        scope: ALL_SCOPES,
      });
      expect(body.expires_in).toBe(60);
      const token = body.access_token ?? '';
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(Date.now() + 50_000);
      expect(await shortLived.verifyAccessToken(token)).not.toBeNull();
      vi.setSystemTime(Date.now() + 15_000);
      expect(await shortLived.verifyAccessToken(token)).toBeNull();
    } finally {
      vi.useRealTimers();
      await shortLived.close();
    }
  });

  it('returns null for another audience or another issuer', async () => {
    const token = await serviceToken();
    const publicJwks = (await (await fetch(`${identity.issuer}/.well-known/openid-configuration/jwks`)).json()) as {
      keys: [];
    };
    const sameApi = createAccessTokenVerifier({ issuer: identity.issuer, audience: API, publicJwks });
    expect(await sameApi(token)).not.toBeNull();
    const otherApi = createAccessTokenVerifier({
      issuer: identity.issuer,
      audience: 'http://127.0.0.1:9/',
      publicJwks,
    });
    expect(await otherApi(token)).toBeNull();

    const elsewhere = await startIdentity({ apiAudience: API });
    try {
      expect(await elsewhere.verifyAccessToken(token)).toBeNull();
    } finally {
      await elsewhere.close();
    }
  });
});
