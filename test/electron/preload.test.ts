import { describe, expect, it, vi } from 'vitest';
import { CALL_CHANNEL, EVENT_CHANNEL } from '../../main/electron/channels.js';
import type { ContractTransport } from '../../shared/transport-protocol.js';
import { contextBridge, ipcRenderer } from './electron-double.js';

vi.mock('electron', () => import('./electron-double.js'));
await import('../../main/electron/preload.js');

describe('the preload', () => {
  it('exposes exactly one object to the page: rxBatch, frozen, with call and on only', () => {
    expect([...contextBridge.exposed.keys()]).toEqual(['rxBatch']);
    const api = contextBridge.exposed.get('rxBatch') as ContractTransport;
    expect(Object.isFrozen(api)).toBe(true);
    expect(Object.keys(api).sort()).toEqual(['call', 'on']);
    expect(Object.values(api).every((value) => typeof value === 'function')).toBe(true);
  });

  it('sends calls on the one call channel and returns only the result', async () => {
    const api = contextBridge.exposed.get('rxBatch') as ContractTransport;
    ipcRenderer.invoke.mockResolvedValueOnce({ ok: true, value: { name: 'Rx Batch' } });
    expect(await api.call('app.info', {})).toEqual({ ok: true, value: { name: 'Rx Batch' } });
    expect(ipcRenderer.invoke).toHaveBeenCalledWith(CALL_CHANNEL, 'app.info', {});
  });

  it('delivers events by name with their payload only (never the IPC event), and unsubscribes', () => {
    const api = contextBridge.exposed.get('rxBatch') as ContractTransport;
    const seen: unknown[][] = [];
    const off = api.on('outbox.progress', (...args: unknown[]) => seen.push(args));
    const ipcEvent = { sender: ipcRenderer, ports: [] };
    ipcRenderer.emit(EVENT_CHANNEL, ipcEvent, 'orders.changed', { orderIds: [1] });
    ipcRenderer.emit(EVENT_CHANNEL, ipcEvent, 'outbox.progress', { state: 'idle' });
    expect(seen).toEqual([[{ state: 'idle' }]]);
    off();
    ipcRenderer.emit(EVENT_CHANNEL, ipcEvent, 'outbox.progress', { state: 'sending' });
    expect(seen).toHaveLength(1);
    expect(ipcRenderer.listenerCount(EVENT_CHANNEL)).toBe(0);
  });
});
