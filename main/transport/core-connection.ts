import type { CallHandlers, EventName } from '../../shared/contract.js';
import type { CallResult } from '../../shared/transport-protocol.js';
import type { CoreEvents } from '../core/platform/events.js';
import { dispatchCall } from './dispatch.js';

/**
 * What a transport (Electron IPC, the browser bridge) needs of the core: raw calls answered with the contract's
 * result, and every event. The core host's client (main/host/core-client.ts) is one, for a core in its own
 * process; `inProcessConnection` is one for a core built in this process (tests).
 */
export interface CoreConnection {
  /** The name and input as received: untrusted, parsed by dispatchCall before the core sees them. */
  call(name: unknown, input: unknown): Promise<CallResult>;
  subscribeAll(listener: (event: EventName, payload: unknown) => void): () => void;
}

export function inProcessConnection(core: {
  handlers: CallHandlers;
  events: Pick<CoreEvents, 'subscribeAll'>;
}): CoreConnection {
  return {
    call: (name, input) => dispatchCall(core.handlers, name, input),
    subscribeAll: (listener) => core.events.subscribeAll(listener),
  };
}
