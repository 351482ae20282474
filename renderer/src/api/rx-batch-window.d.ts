import type { ContractTransport } from '../../../shared/transport-protocol.js';

declare global {
  interface Window {
    /** Set by the Electron preload; absent in browser mode, where the bridge's WebSocket carries the contract. */
    readonly rxBatch?: ContractTransport;
  }
}
