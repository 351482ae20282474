import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocketServer, type WebSocket as ServerSocket } from 'ws';
import { POLICY_VIOLATION } from '../../../shared/transport-protocol.js';
import { BridgeSocket } from './bridge-socket.js';
import type { ConnectionState } from './connection-state.js';

const SECRET = 'the-launch-secret';

/** A bridge on loopback that speaks the handshake: the secret first, then `ready`; `refuse` closes with 1008. */
async function startBridge() {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await once(server, 'listening');
  const clients = new Set<ServerSocket>();
  let refuse = false;
  server.on('connection', (socket) => {
    socket.once('message', (data) => {
      const { secret } = JSON.parse((data as Buffer).toString('utf8')) as { secret?: string };
      if (refuse || secret !== SECRET) return socket.close(POLICY_VIOLATION);
      clients.add(socket);
      socket.on('close', () => clients.delete(socket));
      socket.send(JSON.stringify({ ready: true }));
    });
  });
  return {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}/rpc`,
    clients,
    refuseFromNowOn: () => (refuse = true),
    dropAll: () => clients.forEach((client) => client.terminate()),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
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
