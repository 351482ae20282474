import { BrowserWindow, type Rectangle } from 'electron';

export const MIN_WIDTH = 720;
export const MIN_HEIGHT = 480;

/**
 * The main window, locked down: the page gets no Node, runs sandboxed and isolated from the preload, keeps the
 * same-origin policy, loads nothing over plain http into a secure page, gets no experimental web platform
 * features, cannot embed webviews, and a dropped file cannot replace the page. Navigation, new windows and
 * permissions are refused for every webContents by `hardenWebContents` (app.ts applies it as each is created).
 *
 * The options stay a literal inside `new BrowserWindow(…)` so the security scan (electronegativity) can read them.
 */
export function createMainWindow(preload: string, bounds: Partial<Rectangle>, devTools: boolean): BrowserWindow {
  const window = new BrowserWindow({
    ...bounds,
    minWidth: MIN_WIDTH,
    minHeight: MIN_HEIGHT,
    title: 'Rx Batch',
    show: false,
    webPreferences: {
      preload,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      // A middle click on a link would otherwise ask for a new window (refused anyway, see the hardening).
      disableBlinkFeatures: 'Auxclick',
      webviewTag: false,
      navigateOnDragDrop: false,
      safeDialogs: true,
      spellcheck: false,
      devTools,
    },
  });
  window.once('ready-to-show', () => window.show());
  return window;
}
