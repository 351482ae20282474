import { handshakeProof, newNonce, proofHolds } from '../../shared/bridge-handshake.js';

/**
 * The page's side of the bridge handshake (shared/bridge-handshake.ts) for tests that speak to the bridge over a
 * socket of their own: `hello` is sent first; `reply` takes the bridge's challenge and gives the proof to send,
 * after checking the bridge's proof (or without checking, for a probe that plays a page with a wrong secret).
 */
export function pageHandshake(secret: string) {
  const nonce = newNonce();
  return {
    hello: JSON.stringify({ hello: nonce }),
    async reply(message: unknown, o: { verify?: boolean } = {}): Promise<string> {
      const { challenge, proof } = message as { challenge?: unknown; proof?: unknown };
      if (typeof challenge !== 'string' || typeof proof !== 'string') {
        throw new Error(`expected the bridge's challenge, got ${JSON.stringify(message)}`);
      }
      if (o.verify !== false && !(await proofHolds(secret, 'bridge', nonce, proof))) {
        throw new Error('the bridge did not prove it holds the secret');
      }
      return JSON.stringify({ proof: await handshakeProof(secret, 'page', challenge) });
    },
  };
}

/** Whether a bridge message is its challenge. */
export const isChallenge = (message: unknown): boolean =>
  typeof message === 'object' && message !== null && 'challenge' in message;
