import type { CallHandlers } from '../../shared/contract.js';
import type { Environment } from '../../shared/environment.js';
import { isTrackingPageUrl } from '../../shared/tracking-links.js';
import { isLoopbackHost } from '../core/auth/issuer-url.js';

/**
 * Which links may leave the app for the system browser: the device sign-in's verification page, which lives on
 * the identity server of the environment being signed in to, and a known courier's https tracking page for a
 * tracking id. Anything else a page could ask for (a phishing page, `file:`, a custom scheme that launches another
 * program) stays refused.
 */

export interface ExternalLinkIssuer {
  issuer: string;
  kind: Environment['kind'];
}

function parse(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

/**
 * True when `url` is on the origin of one of `issuers`: `https:` for remote environments; for the local sandbox,
 * which runs on this computer over plain http, a loopback host. URLs carrying credentials are always refused.
 */
export function isAllowedExternalUrl(url: string, issuers: readonly ExternalLinkIssuer[]): boolean {
  const target = parse(url);
  if (!target || target.username !== '' || target.password !== '') return false;
  return issuers.some(({ issuer, kind }) => {
    const allowed = parse(issuer);
    if (!allowed || allowed.origin !== target.origin) return false;
    if (kind === 'remote') return target.protocol === 'https:';
    return (target.protocol === 'http:' || target.protocol === 'https:') && isLoopbackHost(target.hostname);
  });
}

/**
 * The issuers whose pages may open right now: environments signed in or with a device sign-in in progress. Asked
 * of the core at click time, so a link for an environment the admin has not started signing in to is refused.
 */
export async function signInIssuers(
  handlers: Pick<CallHandlers, 'environments.list' | 'signin.status'>,
): Promise<ExternalLinkIssuer[]> {
  const environments = await handlers['environments.list']({});
  const issuers: ExternalLinkIssuer[] = [];
  for (const environment of environments) {
    try {
      const status = await handlers['signin.status']({ environmentId: environment.id });
      if (status.signedIn || status.device !== null)
        issuers.push({ issuer: environment.issuer, kind: environment.kind });
    } catch {
      // An environment whose status cannot be read gets no links; the others still do.
    }
  }
  return issuers;
}

export interface ExternalOpener {
  openExternal(url: string): Promise<void>;
}

/**
 * Opens `url` in the system browser if the allow-list says so (a sign-in issuer's page, or a courier's tracking
 * page exactly as shared/tracking-links.ts makes it); resolves to whether it did.
 */
export async function openExternalIfAllowed(
  url: string,
  issuers: () => Promise<readonly ExternalLinkIssuer[]>,
  opener: ExternalOpener,
): Promise<boolean> {
  if (!isTrackingPageUrl(url) && !isAllowedExternalUrl(url, await issuers())) return false;
  await opener.openExternal(url);
  return true;
}
