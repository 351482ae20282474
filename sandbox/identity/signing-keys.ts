import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, type JWK } from 'jose';

/** Every token the sandbox signs uses this algorithm (ID tokens default to it; the API's JWTs follow). */
export const SIGNING_ALG = 'RS256';

export interface SigningKeys {
  /** For oidc-provider's `jwks` option: holds the private parts. Never leaves this process. */
  privateJwks: { keys: JWK[] };
  /** What the provider publishes at its JWKS endpoint and what `verifyAccessToken` checks against. */
  publicJwks: { keys: JWK[] };
}

/** A fresh key pair: nothing is downloaded; kept only where identity-state.ts is given a folder. */
export async function generateSigningKeys(): Promise<SigningKeys> {
  const { privateKey, publicKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
  const kid = randomUUID();
  const meta = { kid, alg: SIGNING_ALG, use: 'sig' };
  return {
    privateJwks: { keys: [{ ...(await exportJWK(privateKey)), ...meta }] },
    publicJwks: { keys: [{ ...(await exportJWK(publicKey)), ...meta }] },
  };
}
