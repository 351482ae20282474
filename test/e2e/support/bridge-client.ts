import WebSocket from 'ws';
import type { CallName, CallOutput } from '../../../shared/contract.js';
import { BRIDGE_SOCKET_PATH } from '../../../shared/transport-protocol.js';
import { isChallenge, pageHandshake } from '../../support/bridge-handshake-client.js';
import type { BrowserModeApp } from './browser-mode.js';

export type Refusal = { refused: 'http'; status: number } | { refused: 'close'; code: number };

/**
 * Opens a socket to the bridge as an arbitrary local program could, with any headers, optionally goes through the
 * handshake with a secret (right or wrong: the bridge's own proof is not checked, so a wrong secret's proof is
 * sent), sends one call, and reports how the bridge refused it (or the answer, when it did not).
 */
export function probeBridge(
  app: BrowserModeApp,
  o: { headers?: Record<string, string>; secret?: string; call?: { id: number; call: string; input: unknown } },
): Promise<Refusal | { refused: false; answer: unknown }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://127.0.0.1:${app.port}${BRIDGE_SOCKET_PATH}`, {
      headers: o.headers ?? { Origin: app.origin },
    });
    const call = o.call ?? { id: 1, call: 'app.info', input: {} };
    socket.on('unexpected-response', (_request, response) => {
      resolve({ refused: 'http', status: response.statusCode ?? 0 });
      socket.terminate();
    });
    const handshake = o.secret === undefined ? undefined : pageHandshake(o.secret);
    socket.on('open', () => socket.send(handshake?.hello ?? JSON.stringify(call)));
    socket.on('message', (data: Buffer) => {
      const message = JSON.parse(data.toString('utf8')) as { id?: unknown; ready?: unknown };
      if (handshake && isChallenge(message)) {
        void handshake.reply(message, { verify: false }).then((proof) => socket.send(proof), reject);
      } else if (message.ready === true) {
        socket.send(JSON.stringify(call));
      } else if (message.id === call.id) {
        resolve({ refused: false, answer: message });
        socket.close();
      }
    });
    socket.on('close', (code) => resolve({ refused: 'close', code }));
    socket.on('error', (error) => {
      if (!/Unexpected server response/.test(error.message)) reject(error);
    });
  });
}

/** One call over the bridge with the launch secret, as the renderer makes it. */
export async function callBridge<N extends CallName>(
  app: BrowserModeApp,
  call: N,
  input: object,
): Promise<CallOutput<N>> {
  const result = await probeBridge(app, { secret: app.secret, call: { id: 1, call, input } });
  if (result.refused !== false) throw new Error(`the bridge refused the call: ${JSON.stringify(result)}`);
  const answer = result.answer as { ok: boolean; value?: unknown; error?: unknown };
  if (!answer.ok) throw new Error(`${call} failed: ${JSON.stringify(answer.error)}`);
  return answer.value as CallOutput<N>;
}
