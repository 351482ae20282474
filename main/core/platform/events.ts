import { events as eventSchemas, type EventName, type EventPayload } from '../../../shared/contract.js';

type Listener<E extends EventName> = (payload: EventPayload<E>) => void;

/** The core's event hub; transports subscribe and forward. Payloads are checked against the contract once, here. */
export class CoreEvents {
  readonly #listeners = new Map<EventName, Set<Listener<EventName>>>();

  subscribe<E extends EventName>(event: E, listener: Listener<E>): () => void {
    let set = this.#listeners.get(event);
    if (!set) this.#listeners.set(event, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  emit<E extends EventName>(event: E, payload: EventPayload<E>): void {
    const checked = eventSchemas[event].parse(payload) as EventPayload<E>;
    for (const listener of this.#listeners.get(event) ?? []) listener(checked);
  }

  /** Every event, for transports that forward them all. */
  subscribeAll(listener: (event: EventName, payload: unknown) => void): () => void {
    const offs = (Object.keys(eventSchemas) as EventName[]).map((event) =>
      this.subscribe(event, (payload) => listener(event, payload)),
    );
    return () => offs.forEach((off) => off());
  }
}
