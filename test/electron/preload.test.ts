import { describe, expect, it, vi } from 'vitest';
import { CALL_CHANNEL, DROPPED_PATH_CHANNEL, EVENT_CHANNEL } from '../../main/electron/channels.js';
import type { ContractTransport } from '../../shared/transport-protocol.js';
import { contextBridge, FakeFile, ipcRenderer } from './electron-double.js';

vi.mock('electron', () => import('./electron-double.js'));
await import('../../main/electron/preload.js');

type FilesApi = { pathForFile(file: unknown): string };

describe('the preload', () => {
  it('exposes two frozen objects to the page: rxBatch with call and on, rxBatchFiles with pathForFile', () => {
    expect([...contextBridge.exposed.keys()]).toEqual(['rxBatch', 'rxBatchFiles']);
    const files = contextBridge.exposed.get('rxBatchFiles') as FilesApi;
    expect(Object.isFrozen(files)).toBe(true);
    expect(Object.keys(files)).toEqual(['pathForFile']);
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

describe("the preload's dropped-file helper", () => {
  const files = () => contextBridge.exposed.get('rxBatchFiles') as FilesApi;

  it('gives the path of a file the admin dropped, and reports it to main so import.file may read it', () => {
    ipcRenderer.send.mockClear();
    expect(files().pathForFile(new FakeFile('monday.csv', '/home/admin/monday.csv'))).toBe('/home/admin/monday.csv');
    expect(ipcRenderer.send.mock.calls).toEqual([[DROPPED_PATH_CHANNEL, '/home/admin/monday.csv']]);
  });

  it.each([
    ['a File made by page script (no path)', new FakeFile('forged.csv')],
    ['a string naming a path', '/etc/passwd'],
    ['an object posing as a File', { name: 'x.csv', path: '/etc/passwd' }],
    ['nothing', undefined],
  ])('gives an empty string, and reports nothing, for %s', (_label, value) => {
    ipcRenderer.send.mockClear();
    expect(files().pathForFile(value)).toBe('');
    expect(ipcRenderer.send).not.toHaveBeenCalled();
  });
});
