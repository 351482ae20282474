import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocketServer, type WebSocket as ServerSocket } from 'ws';
import { handshakeProof, newNonce, proofHolds } from '../../../shared/bridge-handshake.js';
import { POLICY_VIOLATION } from '../../../shared/transport-protocol.js';
import { BridgeSocket } from './bridge-socket.js';
import type { ConnectionState } from './connection-state.js';

const SECRET = 'the-launch-secret';

const json = (data: unknown) => JSON.parse((data as Buffer).toString('utf8')) as Record<string, string>;

/**
 * A bridge on loopback that speaks the handshake (bridge-handshake.ts) with `secret`, then `ready`; `refuse` closes
 * with 1008. `received` is every message any page sent it.
 */
async function startBridge(port = 0, secret = SECRET) {
  const server = new WebSocketServer({ host: '127.0.0.1', port });
  await once(server, 'listening');
  const clients = new Set<ServerSocket>();
  const received: Record<string, string>[] = [];
  let refuse = false;
  server.on('connection', (socket) => {
    const challenge = newNonce();
    socket.on('message', (data) => received.push(json(data)));
    socket.once('message', (data) => {
      void handshakeProof(secret, 'bridge', json(data).hello ?? '').then((proof) =>
        socket.send(JSON.stringify({ challenge, proof })),
      );
      socket.once('message', (answer) => {
        void proofHolds(secret, 'page', challenge, json(answer).proof ?? '').then((holds) => {
          if (refuse || !holds) return socket.close(POLICY_VIOLATION);
          clients.add(socket);
          socket.on('close', () => clients.delete(socket));
          socket.send(JSON.stringify({ ready: true }));
        });
      });
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}/rpc`,
    clients,
    received,
    refuseFromNowOn: () => (refuse = true),
    dropAll: () => clients.forEach((client) => client.terminate()),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * A program that took the port after the bridge stopped: it answers as the bridge would (`ready` at once, or after a
 * challenge whose proof it cannot make) and records what the page sends it.
 */
async function startSquatter(port: number, answer: 'ready' | 'challenge') {
  const server = new WebSocketServer({ host: '127.0.0.1', port });
  await once(server, 'listening');
  const received: Record<string, string>[] = [];
  server.on('connection', (socket) => {
    socket.on('message', (data) => received.push(json(data)));
    socket.once('message', () =>
      socket.send(JSON.stringify(answer === 'ready' ? { ready: true } : { challenge: newNonce(), proof: newNonce() })),
    );
  });
  return { received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

let bridge: Awaited<ReturnType<typeof startBridge>> | undefined;
let socket: BridgeSocket | undefined;
afterEach(async () => {
  socket?.close();
  await bridge?.close();
  bridge = socket = undefined;
});

// Issue #13: when the page's link to Rx Batch drops, the header says so at once and once, and events flow again
// by themselves (they need an open socket), not only after the next call.
describe('the browser transport, when its link drops', () => {
  it('says it is lost at once, once, reconnects by itself, and says it is back', async () => {
    bridge = await startBridge();
    const heard: ConnectionState[] = [];
    socket = new BridgeSocket(bridge.url, SECRET, (state) => heard.push(state));
    await socket.connect();
    expect(heard).toEqual([]);

    bridge.dropAll();
    await vi.waitFor(() => expect(heard[0]).toMatchObject({ state: 'lost', refused: false }));
    expect((heard[0] as { nextTryAt: number }).nextTryAt).toBeGreaterThan(Date.now() - 1_000);
    await vi.waitFor(() => expect(heard.at(-1)).toEqual({ state: 'connected' }), { timeout: 5_000 });
    // One "lost" for the drop (the first try succeeded), then "connected": nothing repeated.
    expect(heard.map((state) => state.state)).toEqual(['lost', 'connected']);
    expect(bridge.clients.size).toBe(1);
  });

  it('stops trying, and says why, when the bridge refuses the page', async () => {
    bridge = await startBridge();
    const heard: ConnectionState[] = [];
    socket = new BridgeSocket(bridge.url, SECRET, (state) => heard.push(state));
    await socket.connect();
    bridge.refuseFromNowOn();
    bridge.dropAll();
    await vi.waitFor(() => expect(heard.at(-1)).toMatchObject({ state: 'lost', refused: true, nextTryAt: null }), {
      timeout: 5_000,
    });
    const count = heard.length;
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(heard).toHaveLength(count);
    expect(bridge.clients.size).toBe(0);
  });
});

// Security review: the page proved itself to whatever answered, and took its `ready` for the bridge's, so a program
// that took the port after the bridge stopped was sent the launch secret and every call after it.
describe('the browser transport, when something else answers at the bridge address', () => {
  for (const answer of ['ready', 'challenge'] as const) {
    it(`never sends the secret or a call to a program answering ${answer === 'ready' ? '"ready" at once' : 'with a proof it cannot make'}, and stops trying`, async () => {
      bridge = await startBridge();
      const heard: ConnectionState[] = [];
      socket = new BridgeSocket(bridge.url, SECRET, (state) => heard.push(state));
      await socket.connect();
      expect(JSON.stringify(bridge.received)).not.toContain(SECRET);
      const { port } = bridge;
      bridge.dropAll();
      await bridge.close();
      bridge = undefined;
      const squatter = await startSquatter(port, answer);
      try {
        await vi.waitFor(() => expect(heard.at(-1)).toMatchObject({ state: 'lost', refused: true }), {
          timeout: 5_000,
        });
        expect((heard.at(-1) as { message: string }).message).toMatch(/^Something other than Rx Batch/);
        const call = await socket.call('app.info', {});
        expect(call.ok).toBe(false);
        await new Promise((resolve) => setTimeout(resolve, 300));
        // What it got: hellos (a fresh nonce each), nothing else.
        expect(squatter.received.length).toBeGreaterThan(0);
        for (const message of squatter.received) expect(Object.keys(message)).toEqual(['hello']);
        expect(JSON.stringify(squatter.received)).not.toContain(SECRET);
      } finally {
        await squatter.close();
      }
    });
  }

  it('refuses, on the first connect, a bridge holding another secret', async () => {
    bridge = await startBridge(0, 'another-launch-secret');
    socket = new BridgeSocket(bridge.url, SECRET);
    await expect(socket.connect()).rejects.toThrow(/Something other than Rx Batch/);
    expect(bridge.received.map((message) => Object.keys(message))).toEqual([['hello']]);
  });
});
