import type { RxBatchApi } from '../../../shared/contract.js';
import { ContractError } from '../../../shared/errors.js';
import { BRIDGE_SOCKET_PATH } from '../../../shared/transport-protocol.js';
import { apiOverTransport } from './api-over-transport.js';
import { BridgeSocket } from './bridge-socket.js';
import { takeBridgeSecret } from './bridge-secret.js';
import { connectionStatus } from './connection-state.js';

let api: Promise<RxBatchApi> | undefined;

async function connect(): Promise<RxBatchApi> {
  if (window.rxBatch) return apiOverTransport(window.rxBatch);
  const secret = takeBridgeSecret();
  if (!secret) {
    throw new ContractError({
      code: 'forbidden',
      message: 'This page needs the address Rx Batch printed when it started: it carries a one-time key.',
    });
  }
  const socket = new BridgeSocket(`ws://${window.location.host}${BRIDGE_SOCKET_PATH}`, secret, (state) =>
    connectionStatus.set(state),
  );
  // Connect now, so a refused key shows at start-up rather than at the first click.
  await socket.connect();
  return apiOverTransport(socket);
}

/** The one API the renderer uses: Electron's preload when present, else the browser bridge. */
export function getApi(): Promise<RxBatchApi> {
  api ??= connect().catch((error: unknown) => {
    api = undefined;
    throw error;
  });
  return api;
}
