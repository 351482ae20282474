import { isLoopbackHost } from '../../../shared/loopback.js';
import { AuthError } from './auth-error.js';

export { isLoopbackHost };

export interface CheckedIssuer {
  url: URL;
  /** Plain http, allowed only because the host is loopback (the local sandbox). */
  insecure: boolean;
}

/**
 * Tokens must never cross a network in clear text: https everywhere, plain http only to this computer, where the
 * local sandbox runs.
 */
export function checkIssuerUrl(issuer: string): CheckedIssuer {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    throw new AuthError('invalid-issuer', `The identity server address "${issuer}" is not a valid URL.`);
  }
  if (url.protocol === 'https:') return { url, insecure: false };
  if (url.protocol === 'http:') {
    if (isLoopbackHost(url.hostname)) return { url, insecure: true };
    throw new AuthError(
      'insecure-issuer',
      `The identity server address ${url.origin} uses plain http. Use https; plain http is only allowed for this computer (localhost, 127.0.0.1, [::1]).`,
    );
  }
  throw new AuthError('invalid-issuer', `The identity server address must start with https:// (got ${url.protocol}).`);
}
