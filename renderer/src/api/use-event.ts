import { useEffect, useRef } from 'react';
import type { EventName, EventPayload } from '../../../shared/contract.js';
import { useApi } from './api-context.js';

/** Listens to one core event while the component is mounted; the latest listener is always the one called. */
export function useEvent<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): void {
  const api = useApi();
  const latest = useRef(listener);
  useEffect(() => {
    latest.current = listener;
  });
  useEffect(() => api.on(event, (payload) => latest.current(payload)), [api, event]);
}
