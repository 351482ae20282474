/**
 * Sign-in failures as values the UI can act on:
 * - `invalid-issuer` / `insecure-issuer`: fix the environment's settings;
 * - `unreachable`: the identity server did not answer (network, timeout, 5xx): try again later;
 * - `rejected`: the server refused (wrong client id or secret, grant not allowed): fix credentials;
 * - `not-supported`: the server does not offer what this environment needs (e.g. no device sign-in);
 * - `no-secret`: client credentials sign-in with no secret given or stored;
 * - `wrong-grant`: the call does not match the environment's grant;
 * - `insecure-verification-uri`: the device sign-in page the server named is not https (nor on this computer);
 * - `foreign-endpoint`: the discovery document sends the token (or device, revocation) requests to another origin
 *   than the issuer's, or over plain http: nothing is sent there;
 * - `unusable-answer`: the identity server answered a sign-in's token request with nothing usable (not JSON, no
 *   access token, a token type other than Bearer): not an acceptance, and not an outage; its settings are to fix.
 */
export type AuthErrorCode =
  | 'invalid-issuer'
  | 'insecure-issuer'
  | 'unreachable'
  | 'rejected'
  | 'not-supported'
  | 'no-secret'
  | 'wrong-grant'
  | 'insecure-verification-uri'
  | 'foreign-endpoint'
  | 'unusable-answer';

export class AuthError extends Error {
  readonly code: AuthErrorCode;
  constructor(code: AuthErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AuthError';
    this.code = code;
  }
}
