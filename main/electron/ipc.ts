import { isAbsolute } from 'node:path';
import { ipcMain, type BrowserWindow, type IpcMainEvent, type WebFrameMain } from 'electron';
import { MAX_MESSAGE_BYTES } from '../../shared/contract.js';
import type { CallResult } from '../../shared/transport-protocol.js';
import type { CoreConnection } from '../transport/core-connection.js';
import { isAppUrl } from './app-protocol.js';
import { CALL_CHANNEL, DROPPED_PATH_CHANNEL, EVENT_CHANNEL } from './channels.js';
import type { PathGrants } from './path-grants.js';

/** Only the window's own top frame, showing the app's own page, may call the core. */
export function isTrustedSender(frame: WebFrameMain | null | undefined, window: BrowserWindow): boolean {
  return !window.isDestroyed() && frame != null && frame === window.webContents.mainFrame && isAppUrl(frame.url);
}

/**
 * The payload's size as JSON, or undefined when it is not plain JSON data (a BigInt, a cycle). IPC's structured
 * clone carries more than the contract needs; the IPC door accepts what the bridge's does and no more.
 */
export function jsonByteLength(payload: unknown): number | undefined {
  try {
    const text = JSON.stringify(payload ?? null);
    return Buffer.byteLength(text, 'utf8');
  } catch {
    return undefined;
  }
}

/** The path an `import.file` call names, when it names one as text (anything else is left to the schema). */
function importPath(name: unknown, input: unknown): string | undefined {
  if (name !== 'import.file' || typeof input !== 'object' || input === null || !('path' in input)) return undefined;
  return typeof input.path === 'string' ? input.path : undefined;
}

const NOT_HANDED_OVER =
  'that file was not chosen in this window: choose it with "Choose files…" or File → Import Files…, or drop it here';

function refused(code: 'forbidden' | 'invalid-input', message: string): Promise<CallResult> {
  return Promise.resolve({ ok: false, error: { code, message } });
}

/**
 * The only place that touches ipcMain, and so the only way to reach the core over IPC: one handler for every
 * call (sender checked, size checked, an `import.file` path checked against the paths the admin handed over,
 * then relayed to the core host, whose `dispatchCall` parses the payload with the call's zod schema before the
 * core sees it), the preload's report of a dropped file's path, and core events forwarded to the window.
 */
export function bindIpc(core: CoreConnection, window: BrowserWindow, grants: PathGrants): () => void {
  ipcMain.handle(CALL_CHANNEL, (event, name: unknown, input: unknown): Promise<CallResult> => {
    if (!isTrustedSender(event.senderFrame, window)) return refused('forbidden', 'not the Rx Batch window');
    const size = jsonByteLength(input);
    if (size === undefined) return refused('invalid-input', 'the call input is not plain JSON data');
    if (size > MAX_MESSAGE_BYTES) {
      return refused('invalid-input', `the call input is too large (${size} bytes, at most ${MAX_MESSAGE_BYTES})`);
    }
    const path = importPath(name, input);
    if (path !== undefined && !grants.has(path, 'import')) return refused('forbidden', NOT_HANDED_OVER);
    return core.call(name, input);
  });
  // Only the preload sends here, with the path Electron gave it for a File the admin dropped or picked: page
  // script cannot reach ipcRenderer, and cannot make a File that has a path.
  const onDroppedPath = (event: IpcMainEvent, path: unknown) => {
    if (!isTrustedSender(event.senderFrame, window)) return;
    if (typeof path === 'string' && path.length <= 4096 && isAbsolute(path)) grants.add([path], 'import');
  };
  ipcMain.on(DROPPED_PATH_CHANNEL, onDroppedPath);
  const unsubscribe = core.subscribeAll((event, payload) => {
    if (!window.isDestroyed()) window.webContents.send(EVENT_CHANNEL, event, payload);
  });
  return () => {
    ipcMain.removeHandler(CALL_CHANNEL);
    ipcMain.removeListener(DROPPED_PATH_CHANNEL, onDroppedPath);
    unsubscribe();
  };
}
