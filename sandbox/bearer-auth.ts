import type { IncomingMessage } from 'node:http';
import { HttpError } from './http-io.js';
import type { Scope } from './routes.js';

/** Checks `Authorization: Bearer <JWT>` against the identity server and the route's scope. */

export interface VerifiedToken {
  clientId: string;
  scopes: string[];
  subject?: string;
}

export type AccessTokenVerifier = (token: string) => Promise<VerifiedToken | null>;

const CHALLENGE = { 'www-authenticate': 'Bearer' };

export async function authorise(
  req: IncomingMessage,
  scope: Scope,
  verify: AccessTokenVerifier,
): Promise<VerifiedToken> {
  const header = req.headers.authorization ?? '';
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) {
    throw new HttpError(401, 'Unauthorized', { message: 'a bearer access token is required' }, CHALLENGE);
  }
  const verified = await verify(match[1]!);
  if (!verified) {
    throw new HttpError(
      401,
      'Unauthorized',
      { message: 'the access token is invalid or has expired' },
      { 'www-authenticate': 'Bearer error="invalid_token"' },
    );
  }
  if (!verified.scopes.includes(scope)) {
    throw new HttpError(
      403,
      'Forbidden',
      { message: `the access token lacks the ${scope} scope` },
      { 'www-authenticate': `Bearer error="insufficient_scope", scope="${scope}"` },
    );
  }
  return verified;
}
