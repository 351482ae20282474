import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import type { CallResult, ContractTransport } from '../../shared/transport-protocol.js';
import { CALL_CHANNEL, EVENT_CHANNEL } from './channels.js';

/**
 * The page's only door to main: one frozen object with `call` and `on`. Nothing of ipcRenderer itself is
 * exposed, so page script cannot send on other channels or see the IPC event objects.
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

contextBridge.exposeInMainWorld('rxBatch', rxBatch);
