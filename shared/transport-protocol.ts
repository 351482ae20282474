import { z } from 'zod';
import { contractErrorSchema } from './errors.js';

/**
 * What the renderer's two remote transports carry. Both deliver raw call results and untyped event payloads;
 * the renderer turns them into a typed `RxBatchApi` (and checks them against the contract) in one place.
 *
 * Electron: the preload exposes a `ContractTransport` as `window.rxBatch`. Results, not thrown errors, cross
 * the context bridge, because an Error passing through it keeps only its message, not the contract's code.
 *
 * Browser mode: the bridge's WebSocket messages (JSON text frames). Both ends parse what they receive with these
 * schemas: the server because any page could be talking to it, the renderer because types vanish at run time.
 *
 * 1. the handshake (bridge-handshake.ts): `{ hello }`, `{ challenge, proof }`, `{ proof }`, then the server answers
 *    `{ ready: true }` or closes with 1008. Neither side sends the secret; each proves it holds it.
 * 2. client → `{ id, call, input }`; server → `{ id, ok: true, value }` or `{ id, ok: false, error }`.
 * 3. server → `{ event, payload }` for every core event, at any time after `ready`.
 */

/** Path of the WebSocket endpoint on the bridge's origin. */
export const BRIDGE_SOCKET_PATH = '/rpc';

/** Close code the server uses for a refused client (RFC 6455 policy violation). */
export const POLICY_VIOLATION = 1008;

/** A nonce or a proof: base64url of 32 bytes. */
const handshakeToken = z.string().regex(/^[A-Za-z0-9_-]{43}$/);

export const helloSchema = z.object({ hello: handshakeToken }).strict();
export const pageProofSchema = z.object({ proof: handshakeToken }).strict();

const requestIdSchema = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);

export const requestSchema = z
  .object({ id: requestIdSchema, call: z.string().min(1).max(100), input: z.unknown().optional() })
  .strict();
export type BridgeRequest = z.infer<typeof requestSchema>;

/** A call's outcome as every transport carries it; `null` id when the request was too broken to have one. */
export const callResultSchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), value: z.unknown() }),
  z.object({ ok: z.literal(false), error: contractErrorSchema }),
]);
export type CallResult = z.infer<typeof callResultSchema>;

export const serverMessageSchema = z.union([
  z.object({ challenge: handshakeToken, proof: handshakeToken }),
  z.object({ ready: z.literal(true) }),
  z.intersection(z.object({ id: requestIdSchema.nullable() }), callResultSchema),
  z.object({ event: z.string(), payload: z.unknown() }),
]);
export type ServerMessage = z.infer<typeof serverMessageSchema>;

/** The untyped, serialisable side of a transport, as the preload exposes it and the WebSocket client provides it. */
export interface ContractTransport {
  call(name: string, input: unknown): Promise<CallResult>;
  on(event: string, listener: (payload: unknown) => void): () => void;
}
