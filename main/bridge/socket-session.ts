import type { RawData, WebSocket } from 'ws';
import { handshakeProof, newNonce, proofHolds } from '../../shared/bridge-handshake.js';
import {
  helloSchema,
  pageProofSchema,
  POLICY_VIOLATION,
  requestSchema,
  type CallResult,
  type ServerMessage,
} from '../../shared/transport-protocol.js';
import type { CoreConnection } from '../transport/core-connection.js';
import { nestsTooDeep, tooDeep } from '../transport/dispatch.js';

/** How long a new socket may take over the handshake (bridge-handshake.ts) before it is closed. */
export const HELLO_TIMEOUT_MS = 10_000;

const ENVELOPE_HELP = 'a request is a JSON object {"id": <integer>, "call": <call name>, "input": <object>}';

export interface SessionDeps {
  /** Calls go to the core as received here (its dispatchCall parses the input); every event comes back. */
  core: CoreConnection;
  secret: string;
}

function send(socket: WebSocket, message: ServerMessage): void {
  if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
}

function textOf(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data as ArrayBuffer).toString('utf8');
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The id of a request too broken to parse, when it still has a usable one, so the client can match the error. */
function salvageId(message: unknown): number | null {
  if (typeof message !== 'object' || message === null || !('id' in message)) return null;
  const { id } = message;
  return typeof id === 'number' && Number.isSafeInteger(id) && id >= 0 ? id : null;
}

/**
 * One WebSocket from the renderer. Until it has proved it holds the launch secret (bridge-handshake.ts) it can do
 * nothing and hears nothing but the bridge's own proof; after that every message is still untrusted: the envelope
 * is parsed here, the call's input by dispatchCall (in the core host).
 */
export function runSocketSession(socket: WebSocket, deps: SessionDeps): void {
  let unsubscribe: (() => void) | undefined;
  // The nonce this side sent, once the page said hello; messages while a proof is being checked wait their turn.
  let challenge: string | undefined;
  let handshake: Promise<void> = Promise.resolve();
  const refuse = (reason: string) => socket.close(POLICY_VIOLATION, reason);
  const helloTimer = setTimeout(() => refuse('the handshake did not finish in time'), HELLO_TIMEOUT_MS);

  const shake = async (message: unknown) => {
    if (challenge === undefined) {
      const hello = helloSchema.safeParse(message);
      if (!hello.success) return refuse('the handshake was expected');
      challenge = newNonce();
      const proof = await handshakeProof(deps.secret, 'bridge', hello.data.hello);
      send(socket, { challenge, proof });
      return;
    }
    const answer = pageProofSchema.safeParse(message);
    if (!answer.success || !(await proofHolds(deps.secret, 'page', challenge, answer.data.proof))) {
      return refuse('the launch secret is missing or wrong');
    }
    clearTimeout(helloTimer);
    if (socket.readyState !== socket.OPEN) return;
    unsubscribe = deps.core.subscribeAll((event, payload) => send(socket, { event, payload }));
    send(socket, { ready: true });
  };

  const answer = async (raw: unknown) => {
    const request = requestSchema.safeParse(raw);
    if (!request.success) {
      const error = { code: 'invalid-input' as const, message: ENVELOPE_HELP };
      send(socket, { id: salvageId(raw), ok: false, error });
      return;
    }
    const { id, call, input } = request.data;
    if (nestsTooDeep(input)) return send(socket, { id, ...tooDeep(call) });
    const result: CallResult = await deps.core.call(call, input);
    send(socket, { id, ...result });
  };

  socket.on('message', (data, isBinary) => {
    const message = isBinary ? undefined : parseJson(textOf(data));
    if (!unsubscribe) {
      // In order, one at a time: a call sent before `ready` finds the session not ready, and is refused.
      handshake = handshake.then(() => (unsubscribe ? answer(message) : shake(message)));
      return;
    }
    void answer(message);
  });

  socket.on('close', () => {
    clearTimeout(helloTimer);
    unsubscribe?.();
  });
  // A socket error (e.g. an oversized frame) is followed by 'close'; without a listener it would be thrown.
  socket.on('error', () => {});
}
