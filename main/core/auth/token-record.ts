import { decodeJwt } from 'jose';
import { z } from 'zod';
import { grantSchema } from '../../../shared/environment.js';
import { AuthError } from './auth-error.js';

/** Secret-store keys, namespaced by environment so environments never see each other's sign-in. */
export function authSecretKeys(environmentId: string): { tokens: string; clientSecret: string } {
  return { tokens: `auth/${environmentId}/tokens`, clientSecret: `auth/${environmentId}/client-secret` };
}

/**
 * Who sign-in material belongs to: the identity server that issued it, the API it is for and the client it was
 * issued to. Tokens and a client secret are used only while the environment's profile still names all three
 * (and, for tokens, the same grant); anything else is deleted unread (docs/security.md, finding 1).
 */
export interface CredentialBinding {
  issuer: string;
  /** The Order Service's origin (scheme, host, port): the only origin a bearer token is sent to. */
  apiOrigin: string;
  clientId: string;
}

export function bindingMatches(stored: CredentialBinding, current: CredentialBinding): boolean {
  return (
    stored.issuer === current.issuer && stored.apiOrigin === current.apiOrigin && stored.clientId === current.clientId
  );
}

/**
 * What a sign-in leaves behind, bound to its issuer, API origin, client id and grant. Version 1 records had no
 * API origin: they are not trusted and read as signed out.
 */
export const storedTokensSchema = z.object({
  version: z.literal(2),
  issuer: z.string(),
  apiOrigin: z.string(),
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

/**
 * Token endpoint answers carry `expires_in` in practice; when one does not, or says 0 (RFC 6749 gives it no
 * meaning: servers mean "unknown"), assume this lifetime. Taken as 0, every request refreshed first.
 */
export const ASSUMED_LIFETIME_SECONDS = 300;

/**
 * The longest lifetime believed: a longer one is taken as this (the token is refreshed sooner than it needed,
 * which costs one request). A garbled one (milliseconds, 10^15) put the expiry past what a Date can hold.
 */
export const MAX_LIFETIME_SECONDS = 24 * 60 * 60;

export interface TokenResponseLike {
  access_token: string;
  /** Lower-cased by openid-client, which refuses any type but bearer and dpop. */
  token_type?: string;
  expires_in?: number;
  refresh_token?: string;
  claims(): { sub?: string } | undefined;
}

/** A client secret as stored: usable only with the identity server, API and client it was given for. */
export const storedClientSecretSchema = z.object({
  version: z.literal(1),
  issuer: z.string(),
  apiOrigin: z.string(),
  clientId: z.string(),
  secret: z.string().min(1),
});
export type StoredClientSecret = z.infer<typeof storedClientSecretSchema>;

/** Visible ASCII only: what a Bearer credential is made of (RFC 6750 b64token is narrower still). */
const HEADER_SAFE_TOKEN = /^[\x21-\x7e]+$/;

export function tokensFromResponse(
  response: TokenResponseLike,
  o: CredentialBinding & { grant: StoredTokens['grant']; now: number; previous?: StoredTokens | null },
): StoredTokens {
  // A DPoP-bound token only works with a proof this client never makes: sent as Bearer, every request is a 401.
  if (response.token_type !== undefined && response.token_type.toLowerCase() !== 'bearer') {
    throw new AuthError(
      'unusable-answer',
      `The identity server issued a ${response.token_type.slice(0, 20)} token; Rx Batch sends Bearer tokens only. Check the client's settings at the identity server.`,
    );
  }
  // Sent as `Authorization: Bearer <token>`: a character a header cannot carry (a line break, one past U+00FF) made
  // Node throw on every request, and the outbox set each order aside in doubt, unsent (docs/security.md, finding 59).
  if (!HEADER_SAFE_TOKEN.test(response.access_token)) {
    throw new AuthError(
      'rejected',
      'The identity server issued an access token with characters an HTTP header cannot carry (spaces, line breaks or letters outside ASCII): it cannot be sent. Check the identity server.',
    );
  }
  const given = response.expires_in;
  const lifetime =
    given === undefined || !Number.isFinite(given) || given <= 0
      ? ASSUMED_LIFETIME_SECONDS
      : Math.min(given, MAX_LIFETIME_SECONDS);
  const refreshToken = response.refresh_token ?? o.previous?.refreshToken;
  const subject = response.claims()?.sub ?? personInAccessToken(response.access_token) ?? o.previous?.subject;
  return {
    version: 2,
    issuer: o.issuer,
    apiOrigin: o.apiOrigin,
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
