import { contextBridge, ipcRenderer, webUtils, type IpcRendererEvent } from 'electron';
import type { CallResult, ContractTransport } from '../../shared/transport-protocol.js';
import { CALL_CHANNEL, DROPPED_PATH_CHANNEL, EVENT_CHANNEL } from './channels.js';

/**
 * The page's only doors to main. `rxBatch`: one frozen object with `call` and `on`; nothing of ipcRenderer
 * itself is exposed, so page script cannot send on other channels or see the IPC event objects.
 */
const rxBatch: ContractTransport = Object.freeze({
  call: (name: string, input: unknown) => ipcRenderer.invoke(CALL_CHANNEL, name, input) as Promise<CallResult>,
  on(event: string, listener: (payload: unknown) => void) {
    const forward = (_ipc: IpcRendererEvent, name: unknown, payload: unknown) => {
      if (name === event) listener(payload);
    };
    ipcRenderer.on(EVENT_CHANNEL, forward);
    return () => {
      ipcRenderer.removeListener(EVENT_CHANNEL, forward);
    };
  },
});

/**
 * `rxBatchFiles.pathForFile(file)`: the path on disk of a File the admin dropped on the page or picked, or `''`
 * (anything else, or a File page script made itself, which has no path). Since Electron 32 a sandboxed page no
 * longer sees `File.path`; `webUtils` in the preload is the way. The path is also reported to main, which from
 * then on lets `import.file` read that one file (ipc.ts refuses paths the admin did not hand over).
 */
const rxBatchFiles = Object.freeze({
  pathForFile(file: unknown): string {
    let path: unknown;
    try {
      path = webUtils.getPathForFile(file as File);
    } catch {
      return '';
    }
    if (typeof path !== 'string' || path === '') return '';
    ipcRenderer.send(DROPPED_PATH_CHANNEL, path);
    return path;
  },
});

contextBridge.exposeInMainWorld('rxBatch', rxBatch);
contextBridge.exposeInMainWorld('rxBatchFiles', rxBatchFiles);
