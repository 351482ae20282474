import type { Session, WebContents } from 'electron';
import type { Logger } from '../core/platform/logger.js';

/**
 * What every web page the app creates is allowed to do: nothing beyond showing the app. Applied to each
 * webContents as it is created (app.ts listens for `web-contents-created`), so a window added later cannot
 * forget it.
 */

export interface LinkPolicy {
  /** Opens the URL in the system browser when the allow-list permits; resolves to whether it did. */
  openExternal(url: string): Promise<boolean>;
}

const hardened = new WeakSet<WebContents>();

/** Scheme and host only: a refused URL's path or query might carry something that does not belong in a log. */
export function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return parsed.host ? `${parsed.protocol}//${parsed.host}` : parsed.protocol;
  } catch {
    return '(not a URL)';
  }
}

/** Idempotent: a second call on the same contents adds nothing. */
export function hardenWebContents(contents: WebContents, links: LinkPolicy, logger: Logger): void {
  if (hardened.has(contents)) return;
  hardened.add(contents);

  const leave = (url: string, how: string) => {
    // The refusal stands either way; an allowed link opens in the system browser instead of in the app.
    links.openExternal(url).then(
      (opened) => {
        if (!opened) logger.warn(`${how} refused`, { target: describeUrl(url) });
      },
      () => logger.warn(`${how}: the system browser could not be opened`, { target: describeUrl(url) }),
    );
  };

  // A single-page app never navigates: links, drops, script and redirects are all refused. loadURL is unaffected.
  contents.on('will-navigate', (event) => {
    event.preventDefault();
    leave(event.url, 'navigation');
  });
  contents.on('will-frame-navigate', (event) => {
    if (!event.isMainFrame) event.preventDefault();
  });
  contents.on('will-redirect', (event) => event.preventDefault());
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    leave(url, 'new window');
    return { action: 'deny' };
  });
  hardenSession(contents.session);
}

/** No permission is ever granted: camera, microphone, geolocation, notifications, HID, serial, USB… */
export function hardenSession(session: Session): void {
  session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
  session.setDevicePermissionHandler(() => false);
}
