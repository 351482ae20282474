import { ORDER_SERVICE_SCOPES } from '../../shared/environment.js';
import type { TokenSource } from '../../main/core/service/client.js';

/**
 * A minimal TokenSource for tests: a real client-credentials POST to `{issuer}/connect/token`, the token kept in
 * memory. `refresh()` fetches a new one, as a service account does when told its token is no longer good.
 */
export interface TestTokenSource extends TokenSource {
  /** Token requests made so far (the first fetch and every refresh). */
  fetches(): number;
  /** Replaces the held token, e.g. with a bad one to provoke a 401. */
  setToken(token: string | null): void;
}

export async function requestClientCredentialsToken(o: {
  issuer: string;
  clientId: string;
  clientSecret: string;
  scopes?: readonly string[];
}): Promise<string> {
  const response = await fetch(`${o.issuer}/connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: o.clientId,
      client_secret: o.clientSecret,
      scope: (o.scopes ?? ORDER_SERVICE_SCOPES).join(' '),
    }),
  });
  const body = (await response.json()) as { access_token?: unknown; error?: unknown };
  if (!response.ok || typeof body.access_token !== 'string') {
    throw new Error(`token request failed: ${response.status} ${String(body.error)}`);
  }
  return body.access_token;
}

export function clientCredentialsTokenSource(o: {
  issuer: string;
  clientId: string;
  clientSecret: string;
  scopes?: readonly string[];
}): TestTokenSource {
  let token: string | null = null;
  let fetches = 0;
  const fetchToken = async () => {
    fetches += 1;
    token = await requestClientCredentialsToken(o);
  };
  return {
    async getAccessToken() {
      if (token === null) await fetchToken();
      return token;
    },
    async refresh() {
      try {
        await fetchToken();
        return true;
      } catch {
        return false;
      }
    },
    fetches: () => fetches,
    setToken(next) {
      token = next;
    },
  };
}
