import type { CallHandlers, EventName, EventPayload, RxBatchApi } from '../../shared/contract.js';
import { ContractError } from '../../shared/errors.js';
import type { CoreEvents } from '../core/platform/events.js';
import { dispatchCall } from './dispatch.js';

/** The in-process transport (tests, CLI): same validation as IPC and the bridge, no serialisation. */
export function createDirectApi(handlers: CallHandlers, events: CoreEvents): RxBatchApi {
  return {
    async call(name, input) {
      const result = await dispatchCall(handlers, name, input);
      if (!result.ok) throw new ContractError(result.error);
      return result.value as never;
    },
    on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void) {
      return events.subscribe(event, listener);
    },
  };
}
