import { useSyncExternalStore } from 'react';
import { parseRoute, type Route } from './route.js';

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
