import { ipcMain, type BrowserWindow, type WebFrameMain } from 'electron';
import type { CallResult } from '../../shared/transport-protocol.js';
import type { Core } from '../core/app-core.js';
import { dispatchCall } from '../transport/dispatch.js';
import { isAppUrl } from './app-protocol.js';
import { CALL_CHANNEL, EVENT_CHANNEL } from './channels.js';

/** Only the window's own top frame, showing the app's own page, may call the core. */
function isTrustedSender(frame: WebFrameMain | null, window: BrowserWindow): boolean {
  return frame !== null && frame === window.webContents.mainFrame && isAppUrl(frame.url);
}

/** The only place that touches ipcMain: one handler for every call, and core events forwarded to the window. */
export function bindIpc(core: Pick<Core, 'handlers' | 'events'>, window: BrowserWindow): () => void {
  ipcMain.handle(CALL_CHANNEL, (event, name: unknown, input: unknown): Promise<CallResult> => {
    if (!isTrustedSender(event.senderFrame, window)) {
      return Promise.resolve({ ok: false, error: { code: 'forbidden', message: 'not the Rx Batch window' } });
    }
    return dispatchCall(core.handlers, name, input);
  });
  const unsubscribe = core.events.subscribeAll((event, payload) => {
    if (!window.isDestroyed()) window.webContents.send(EVENT_CHANNEL, event, payload);
  });
  return () => {
    ipcMain.removeHandler(CALL_CHANNEL);
    unsubscribe();
  };
}
