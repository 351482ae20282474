/**
 * Browser mode's handshake, in which the page and the bridge each prove they hold the launch secret without either
 * sending it: a program that takes the bridge's port after it stops (any local account can bind a free loopback
 * port) was sent the secret, and then every call, by a page reconnecting by itself, and its answers were shown as
 * the core's. Each side answers the other's fresh nonce with an HMAC-SHA-256 under the secret, labelled with its
 * role so that neither proof can be replayed as the other's.
 *
 * 1. page → `{ hello: pageNonce }`
 * 2. bridge → `{ challenge: bridgeNonce, proof: HMAC(secret, "rx-batch bridge\n" + pageNonce) }`
 * 3. page checks the proof (or closes, sending nothing more) → `{ proof: HMAC(secret, "rx-batch page\n" + bridgeNonce) }`
 * 4. bridge checks it → `{ ready: true }`, or closes with 1008.
 *
 * WebCrypto, so that the page and Node run the same code.
 */

export type HandshakeRole = 'bridge' | 'page';

/** 32 random bytes, base64url (43 characters). */
export function newNonce(): string {
  return toBase64Url(crypto.getRandomValues(new Uint8Array(32)));
}

/** The proof `role` gives for `nonce`: HMAC-SHA-256 under the secret, base64url. */
export async function handshakeProof(secret: string, role: HandshakeRole, nonce: string): Promise<string> {
  const encoder = new TextEncoder();
  const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
  ]);
  const mac = await crypto.subtle.sign('HMAC', key, encoder.encode(`rx-batch ${role}\n${nonce}`));
  return toBase64Url(new Uint8Array(mac));
}

/** Whether `presented` is the proof `role` owes for `nonce`, compared without stopping at the first difference. */
export async function proofHolds(
  secret: string,
  role: HandshakeRole,
  nonce: string,
  presented: string,
): Promise<boolean> {
  const expected = await handshakeProof(secret, role, nonce);
  let difference = expected.length ^ presented.length;
  for (let i = 0; i < expected.length; i += 1) difference |= expected.charCodeAt(i) ^ presented.charCodeAt(i);
  return difference === 0;
}

function toBase64Url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
