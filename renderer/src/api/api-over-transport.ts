import {
  calls,
  events,
  type CallInput,
  type CallName,
  type CallOutput,
  type EventName,
  type EventPayload,
  type RxBatchApi,
} from '../../../shared/contract.js';
import { ContractError } from '../../../shared/errors.js';
import type { ContractTransport } from '../../../shared/transport-protocol.js';

/**
 * The typed API over either remote transport. Whatever arrives is checked against the contract here, so a
 * mismatched main process or a stray message shows up as a clear error rather than as a broken screen.
 */
export function apiOverTransport(transport: ContractTransport): RxBatchApi {
  return {
    async call<N extends CallName>(name: N, input: CallInput<N>): Promise<CallOutput<N>> {
      const result = await transport.call(name, input);
      if (!result.ok) throw new ContractError(result.error);
      const output = calls[name].output.safeParse(result.value);
      if (!output.success) {
        throw new ContractError({ code: 'internal', message: `the answer to ${name} is outside the contract` });
      }
      return output.data as CallOutput<N>;
    },
    on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void) {
      return transport.on(event, (payload) => {
        const parsed = events[event].safeParse(payload);
        // A payload outside the contract is dropped: acting on it could show wrong data as if it were right.
        if (parsed.success) listener(parsed.data as EventPayload<E>);
      });
    },
  };
}
