import { decodeJwt } from 'jose';
import { z } from 'zod';
import { grantSchema } from '../../../shared/environment.js';

/** Secret-store keys, namespaced by environment so environments never see each other's sign-in. */
export function authSecretKeys(environmentId: string): { tokens: string; clientSecret: string } {
  return { tokens: `auth/${environmentId}/tokens`, clientSecret: `auth/${environmentId}/client-secret` };
}

/**
 * What a sign-in leaves behind. issuer, clientId and grant are kept so tokens from a since-edited environment
 * are not sent to a different server.
 */
export const storedTokensSchema = z.object({
  version: z.literal(1),
  issuer: z.string(),
  clientId: z.string(),
  grant: grantSchema,
  accessToken: z.string().min(1),
  /** ms since epoch, on the session's clock. */
  obtainedAt: z.number(),
  expiresAt: z.number(),
  refreshToken: z.string().min(1).optional(),
  /** The signed-in person, for display only (never used for authorisation). */
  subject: z.string().optional(),
});
export type StoredTokens = z.infer<typeof storedTokensSchema>;

/** Token endpoint answers carry `expires_in` in practice; when one does not, assume this lifetime. */
export const ASSUMED_LIFETIME_SECONDS = 300;

export interface TokenResponseLike {
  access_token: string;
  expires_in?: number;
  refresh_token?: string;
  claims(): { sub?: string } | undefined;
}

export function tokensFromResponse(
  response: TokenResponseLike,
  o: { issuer: string; clientId: string; grant: StoredTokens['grant']; now: number; previous?: StoredTokens | null },
): StoredTokens {
  const lifetime = response.expires_in ?? ASSUMED_LIFETIME_SECONDS;
  const refreshToken = response.refresh_token ?? o.previous?.refreshToken;
  const subject = response.claims()?.sub ?? personInAccessToken(response.access_token) ?? o.previous?.subject;
  return {
    version: 1,
    issuer: o.issuer,
    clientId: o.clientId,
    grant: o.grant,
    accessToken: response.access_token,
    obtainedAt: o.now,
    expiresAt: o.now + lifetime * 1000,
    ...(refreshToken ? { refreshToken } : {}),
    ...(subject ? { subject } : {}),
  };
}

/** The `sub` of a JWT access token when a person (not the client itself) is behind it; unverified, display only. */
function personInAccessToken(token: string): string | undefined {
  try {
    const { sub, client_id: clientId } = decodeJwt(token);
    return sub && sub !== clientId ? sub : undefined;
  } catch {
    return undefined;
  }
}
