import { AuthError } from './auth-error.js';

/** True for this computer: 127.0.0.0/8, ::1 and localhost (names under .localhost included, per RFC 6761). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (host === '::1' || host === '0:0:0:0:0:0:0:1') return true;
  const v4 = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  return v4 !== null && v4.slice(1).every((part) => Number(part) <= 255);
}

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
