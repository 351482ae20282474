import { useSyncExternalStore } from 'react';

/**
 * The page's own link to Rx Batch (browser mode's WebSocket to the bridge): connected, or lost with why and when
 * the page tries again (null: it does not, as when the bridge refuses the page). The desktop app's link does not
 * drop, so it stays connected.
 */
export type ConnectionState =
  { state: 'connected' } | { state: 'lost'; message: string; nextTryAt: number | null; refused: boolean };

type Listener = (state: ConnectionState) => void;

/** One per page: the transport writes it, the header and the live state read it. */
export class ConnectionStatus {
  #state: ConnectionState = { state: 'connected' };
  readonly #listeners = new Set<Listener>();

  get = (): ConnectionState => this.#state;

  set(state: ConnectionState): void {
    this.#state = state;
    for (const listener of this.#listeners) listener(state);
  }

  subscribe = (listener: Listener): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };
}

export const connectionStatus = new ConnectionStatus();

export function useConnection(): ConnectionState {
  return useSyncExternalStore(connectionStatus.subscribe, connectionStatus.get);
}
