import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { HttpError } from './http-io.js';

/**
 * The door of the admin routes (`/__sandbox/*`: every stored order's raw body, the fault switches). They exist
 * only where the sandbox was started with them (tests, `npm run sandbox`), never in the app's embedded sandbox,
 * and even then each request must carry this launch's token as `Authorization: Bearer <token>`, and a POST must
 * say `Content-Type: application/json`. A web page can make the browser send requests to 127.0.0.1, but not with
 * a header it does not know, and a cross-site form can only send `text/plain` or form bodies.
 */

/** A new admin token for one launch: 32 random bytes, base64url (43 characters). */
export function newAdminToken(): string {
  return randomBytes(32).toString('base64url');
}

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/** Compares in constant time (digests first, so lengths never differ and nothing leaks through them). */
function sameToken(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

/** Throws 401 without this launch's token, 415 for a POST whose body is not declared as JSON. */
export function checkAdminRequest(req: IncomingMessage, token: string): void {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  if (!match || !sameToken(match[1]!, token)) {
    throw new HttpError(
      401,
      'Unauthorized',
      { message: "the sandbox's admin routes need this launch's admin token" },
      { 'www-authenticate': 'Bearer realm="sandbox-admin"' },
    );
  }
  if (req.method === 'POST' && !isJson(req.headers['content-type'])) {
    throw new HttpError(415, 'Unsupported Media Type', { message: 'send the body as Content-Type: application/json' });
  }
}

function isJson(contentType: string | undefined): boolean {
  const mediaType = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  return mediaType === 'application/json';
}
