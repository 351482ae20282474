const STORAGE_KEY = 'rxbatch.bridgeSecret';
const FRAGMENT = /^#secret=([A-Za-z0-9_-]{16,200})$/;

/**
 * The browser bridge's launch secret. It arrives in the URL fragment (never sent to a server); it is moved into
 * sessionStorage, so a reload of this tab still works, and taken out of the address bar, so it is not left in
 * history, bookmarks or a screen share.
 */
export function takeBridgeSecret(): string | undefined {
  const match = FRAGMENT.exec(window.location.hash);
  if (match?.[1]) {
    window.sessionStorage.setItem(STORAGE_KEY, match[1]);
    window.history.replaceState(window.history.state, '', window.location.pathname + window.location.search);
    return match[1];
  }
  return window.sessionStorage.getItem(STORAGE_KEY) ?? undefined;
}
