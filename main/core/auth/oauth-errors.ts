import { ClientError, ResponseBodyError } from 'openid-client';
import { AuthError } from './auth-error.js';

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
    const cause = err.cause instanceof Error ? `: ${err.cause.message}` : '';
    return { definitive: false, message: `Could not reach the identity server (${err.message}${cause}).` };
  }
  return { definitive: false, message: 'Could not reach the identity server.' };
}

export function toAuthError(err: unknown): AuthError {
  if (err instanceof AuthError) return err;
  const c = classifyOAuthError(err);
  return new AuthError(c.definitive ? 'rejected' : 'unreachable', c.message, { cause: err });
}
