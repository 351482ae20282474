/** Small helpers for tests that speak raw OAuth over HTTP to the sandbox identity provider. */

export function postForm(url: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields).toString(),
  });
}

export function basicAuth(clientId: string, clientSecret: string): Record<string, string> {
  const encode = (v: string) => encodeURIComponent(v);
  return { authorization: `Basic ${Buffer.from(`${encode(clientId)}:${encode(clientSecret)}`).toString('base64')}` };
}

export interface TokenBody {
  access_token?: string;
  refresh_token?: string;
  id_token?: string;
  token_type?: string;
  expires_in?: number;
  scope?: string;
  error?: string;
  error_description?: string;
}

export async function tokenRequest(
  issuer: string,
  fields: Record<string, string>,
  headers?: Record<string, string>,
): Promise<{ status: number; body: TokenBody; headers: Headers }> {
  const res = await postForm(`${issuer}/connect/token`, fields, headers);
  return { status: res.status, body: (await res.json()) as TokenBody, headers: res.headers };
}

/** Decodes one JWT segment without verifying anything (for asserting what the provider put in). */
export function jwtPart(token: string, index: 0 | 1): Record<string, unknown> {
  const part = token.split('.')[index];
  if (part === undefined) throw new Error('not a JWT');
  return JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;
}
