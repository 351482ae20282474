import { useSyncExternalStore } from 'react';
import { parseRoute, replacedHash, type Route } from './route.js';

function subscribe(onChange: () => void): () => void {
  window.addEventListener('hashchange', onChange);
  return () => window.removeEventListener('hashchange', onChange);
}

const currentHash = () => window.location.hash;

/** The route in the address bar's fragment: links change it, and Back and reload keep the admin's place. */
export function useHashRoute(): Route {
  const hash = useSyncExternalStore(subscribe, currentHash);
  return parseRoute(hash);
}

/**
 * Puts `route` in the address bar in place of the current entry (no new history entry: Back still leaves the
 * screen) when it differs within its section, and tells `useHashRoute`, so the address says what the screen shows.
 */
export function replaceRoute(route: Route): void {
  const href = replacedHash(window.location.hash, route);
  if (href === undefined) return;
  window.history.replaceState(window.history.state, '', href);
  window.dispatchEvent(new HashChangeEvent('hashchange'));
}
