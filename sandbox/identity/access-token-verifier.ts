import { createLocalJWKSet, jwtVerify, type JWK } from 'jose';
import { SIGNING_ALG } from './signing-keys.js';

export interface VerifiedToken {
  clientId: string;
  scopes: string[];
  /** The signed-in person's id; absent for client-credentials tokens. */
  subject?: string;
}

/**
 * Checks an access token the way the Order Service must: signature against the provider's public keys, issuer,
 * audience (the API), expiry, and the `at+jwt` type (so an ID token cannot pass as an access token).
 */
export function createAccessTokenVerifier(o: { issuer: string; audience: string; publicJwks: { keys: JWK[] } }) {
  const keys = createLocalJWKSet(o.publicJwks);
  return async function verifyAccessToken(token: string): Promise<VerifiedToken | null> {
    try {
      const { payload } = await jwtVerify(token, keys, {
        issuer: o.issuer,
        audience: o.audience,
        algorithms: [SIGNING_ALG],
        typ: 'at+jwt',
        requiredClaims: ['exp', 'client_id'],
      });
      const clientId = payload.client_id;
      if (typeof clientId !== 'string') return null;
      const scopes = typeof payload.scope === 'string' ? payload.scope.split(' ').filter(Boolean) : [];
      // oidc-provider sets sub = client_id when no person is behind the token.
      const subject = payload.sub && payload.sub !== clientId ? payload.sub : undefined;
      return subject ? { clientId, scopes, subject } : { clientId, scopes };
    } catch {
      return null;
    }
  };
}
