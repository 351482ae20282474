import type { CustomFetch } from 'openid-client';
import { AuthError } from './auth-error.js';

/**
 * Far above any identity server's answer (a discovery document, a token or device answer: a few KB; a JWT with many
 * claims some tens of KB), far below harm.
 */
export const MAX_IDENTITY_RESPONSE_BYTES = 1024 * 1024;

/**
 * A reason phrase a Response may carry (HTAB, SP, visible ASCII, obs-text). Node's parser passes others (a control
 * character, DEL), and a Response built with one throws: every answer of that server read as "unreachable".
 */
const REASON_PHRASE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** Bodies the Fetch standard forbids (a Response built with one throws). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * `unreachable` where a passing fault is what matters (a refresh keeps the sign-in and tries again later); a sign-in
 * takes it as an unusable answer (`unusableTokenAnswer`): the server did answer, so `env add --unverified` must not
 * take it for an outage and keep the secret unchecked.
 */
export class IdentityAnswerTooLarge extends AuthError {
  constructor() {
    super(
      'unreachable',
      `The identity server's answer was larger than ${MAX_IDENTITY_RESPONSE_BYTES / 1024 / 1024} MiB: it was not read. Check the issuer address.`,
    );
  }
}

function tooLarge(): AuthError {
  return new IdentityAnswerTooLarge();
}

/**
 * openid-client's fetch with the answer read whole here, up to MAX_IDENTITY_RESPONSE_BYTES (decoded, so a small
 * gzip that inflates without end stops too). openid-client reads every answer with `response.json()`, unbounded: a
 * discovery document or token answer that never ended held 3.4 GB of the core after the 15 s timeout
 * (docs/security.md, finding 58). Too large is `unreachable`, as a broken answer is: a refresh keeps the sign-in.
 */
export const boundedFetch: CustomFetch = async (url, options) => {
  // openid-client's body type allows a Uint8Array over any buffer, which fetch takes though its types say otherwise.
  const response = await fetch(url, options as RequestInit);
  const declared = Number(response.headers.get('content-length') ?? 0);
  if (declared > MAX_IDENTITY_RESPONSE_BYTES) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  if (!response.body) return response;
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_IDENTITY_RESPONSE_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  const body = NULL_BODY_STATUSES.has(response.status) ? null : Buffer.concat(chunks);
  // The body is decoded already: its content coding no longer applies to these bytes.
  const headers = new Headers(response.headers);
  headers.delete('content-encoding');
  headers.delete('content-length');
  // Nothing reads the reason phrase: one a Response cannot hold is dropped, not thrown on (finding 64).
  const statusText = REASON_PHRASE.test(response.statusText) ? response.statusText : '';
  return new Response(body, { status: response.status, statusText, headers });
};
