import { ClientError, ResponseBodyError } from 'openid-client';
import { describeTlsProblem } from '../platform/tls-problems.js';
import { AuthError } from './auth-error.js';
import { IdentityAnswerTooLarge } from './bounded-fetch.js';

/**
 * A failed TLS handshake in fetch's cause chain, in the admin's words (as the Order Service client words its own),
 * where "Could not reach the identity server (fetch failed: self-signed certificate)" read as an outage.
 */
function tlsProblemIn(err: Error): string | undefined {
  for (let at: unknown = err, depth = 0; at instanceof Error && depth < 4; at = at.cause, depth += 1) {
    const code = (at as { code?: unknown }).code;
    const said = describeTlsProblem(typeof code === 'string' ? code : undefined, at.message, {
      server: 'the identity server',
      address: 'the issuer address',
    });
    if (said) return typeof code === 'string' ? `${said}; nothing was sent (${code})` : `${said}; nothing was sent`;
  }
  return undefined;
}

/** OAuth error codes that mean "this will not work by trying again": the grant or the client is refused. */
const DEFINITIVE = new Set([
  'invalid_grant',
  'invalid_client',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
  'invalid_target',
  'invalid_request',
  'access_denied',
]);

export interface ClassifiedError {
  /** True when the server answered with a refusal; false for network trouble, timeouts and server faults. */
  definitive: boolean;
  /** The OAuth `error` code when the server sent one. */
  oauthError?: string;
  message: string;
}

/** Turns whatever openid-client threw into words and a retry decision. Never includes token values. */
export function classifyOAuthError(err: unknown): ClassifiedError {
  if (err instanceof AuthError) {
    return { definitive: err.code !== 'unreachable', message: err.message };
  }
  if (err instanceof ResponseBodyError) {
    const detail = err.error_description ? `: ${err.error_description}` : '';
    return {
      definitive: DEFINITIVE.has(err.error) && err.status < 500,
      oauthError: err.error,
      message: `The identity server refused the request (${err.error}${detail}).`,
    };
  }
  if (err instanceof ClientError) {
    const cause = err.cause instanceof Error ? ` (${err.cause.message})` : '';
    return { definitive: false, message: `The identity server gave an unusable answer: ${err.message}${cause}.` };
  }
  if (err instanceof Error) {
    const tls = tlsProblemIn(err);
    if (tls) return { definitive: false, message: `${tls[0]!.toUpperCase()}${tls.slice(1)}.` };
    const cause = err.cause instanceof Error ? `: ${err.cause.message}` : '';
    return { definitive: false, message: `Could not reach the identity server (${err.message}${cause}).` };
  }
  return { definitive: false, message: 'Could not reach the identity server.' };
}

/**
 * openid-client's codes for an answer it could not use although it came as one (a 2xx): not JSON, or without what
 * a token answer must hold. A 5xx or a refused connection has codes of its own: those are outages.
 */
const UNUSABLE_ANSWER_CODES = new Set(['OAUTH_PARSE_ERROR', 'OAUTH_INVALID_RESPONSE']);

/**
 * A sign-in's token request answered with nothing usable, as an `unusable-answer` AuthError; undefined for anything
 * else. Only the sign-in asks: a refresh keeps treating such an answer as a passing fault (classifyOAuthError).
 */
export function unusableTokenAnswer(err: unknown): AuthError | undefined {
  // Thrown by the bounded fetch, it may reach here as the cause of openid-client's own error.
  const tooLarge = err instanceof Error && err.cause instanceof IdentityAnswerTooLarge ? err.cause : err;
  if (tooLarge instanceof IdentityAnswerTooLarge) {
    return new AuthError('unusable-answer', tooLarge.message, { cause: err });
  }
  if (!(err instanceof ClientError) || !UNUSABLE_ANSWER_CODES.has(err.code ?? '')) return undefined;
  // The library's words say which field was wrong, never its value.
  const cause = err.cause instanceof Error ? ` (${err.cause.message})` : '';
  return new AuthError(
    'unusable-answer',
    `The identity server gave an unusable answer to the token request: ${err.message}${cause}.`,
    { cause: err },
  );
}

export function toAuthError(err: unknown): AuthError {
  if (err instanceof AuthError) return err;
  const c = classifyOAuthError(err);
  return new AuthError(c.definitive ? 'rejected' : 'unreachable', c.message, { cause: err });
}
