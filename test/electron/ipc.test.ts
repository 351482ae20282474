import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { z } from 'zod';
import { calls, MAX_MESSAGE_BYTES, type CallHandlers, type CallName } from '../../shared/contract.js';
import type { CallResult } from '../../shared/transport-protocol.js';
import { CoreEvents } from '../../main/core/platform/events.js';
import { CALL_CHANNEL, DROPPED_PATH_CHANNEL, EVENT_CHANNEL } from '../../main/electron/channels.js';
import { PathGrants } from '../../main/electron/path-grants.js';
import { inProcessConnection } from '../../main/transport/core-connection.js';
import { BrowserWindow, FakeFrame, ipcMain } from './electron-double.js';

vi.mock('electron', () => import('./electron-double.js'));
const { bindIpc, jsonByteLength } = await import('../../main/electron/ipc.js');

const names = Object.keys(calls) as CallName[];

let window: BrowserWindow;
let handlers: Record<CallName, ReturnType<typeof vi.fn>>;
let events: CoreEvents;
let grants: PathGrants;
let unbind: () => void;

beforeEach(() => {
  window = new BrowserWindow({});
  events = new CoreEvents();
  handlers = Object.fromEntries(
    names.map((name) => [name, vi.fn(() => Promise.reject(new Error(`${name} reached the core`)))]),
  ) as typeof handlers;
  grants = new PathGrants();
  unbind = bindIpc(
    inProcessConnection({ handlers: handlers as unknown as CallHandlers, events }),
    window as never,
    grants,
  );
});
afterEach(() => unbind());

/** What Electron passes to an `ipcMain.handle` handler, from the window's own page unless told otherwise. */
function send(name: unknown, input: unknown, senderFrame: FakeFrame | null = window.webContents.mainFrame) {
  const handler = ipcMain.handlers.get(CALL_CHANNEL);
  if (!handler) throw new Error('no call handler registered');
  return handler({ senderFrame, sender: window.webContents }, name, input) as Promise<CallResult>;
}

function expectNoCoreCall(): void {
  for (const name of names) expect(handlers[name], name).not.toHaveBeenCalled();
}

/** Payloads that are wrong for a call, built from its schema so every call gets its own. */
function badPayloads(name: CallName): Array<[string, unknown]> {
  const shape = (calls[name].input as unknown as z.ZodObject).shape;
  const keys = Object.keys(shape);
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  const cases: Array<[string, unknown]> = [
    ['a number', 42],
    ['a string', 'orders'],
    ['an array', [1, 2, 3]],
    ['a boolean', true],
    ['an unknown field', { unexpected: 'x' }],
    ['a prototype-polluting key', JSON.parse('{"__proto__":{"polluted":true}}')],
    ['a payload over the size limit', { padding: 'x'.repeat(MAX_MESSAGE_BYTES + 1) }],
    ['a BigInt', { value: 10n }],
    ['a cycle', cyclic],
  ];
  if (keys.length > 0) {
    cases.push(['every field of the wrong type', Object.fromEntries(keys.map((key) => [key, { wrong: true }]))]);
    cases.push(['an oversized field', { [keys[0] as string]: 'x'.repeat(MAX_MESSAGE_BYTES + 1) }]);
    cases.push(['a field nested far too deep', { [keys[0] as string]: [[[[[[[[['deep']]]]]]]]] }]);
  }
  return cases;
}

describe('the IPC wrapper', () => {
  it('runs a valid call from the window through to the core (the control for the refusals below)', async () => {
    handlers['app.info'].mockResolvedValueOnce({
      name: 'Rx Batch',
      version: '1.0.0',
      transport: 'electron',
      dataDir: '/tmp/rx',
    });
    expect(await send('app.info', {})).toEqual({
      ok: true,
      value: { name: 'Rx Batch', version: '1.0.0', transport: 'electron', dataDir: '/tmp/rx' },
    });
    expect(handlers['app.info']).toHaveBeenCalledWith({});
  });

  describe.each(names)('%s', (name) => {
    it.each(badPayloads(name))('refuses %s with a clear error, and the core never sees it', async (_label, payload) => {
      const result = await send(name, payload);
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.error.code).toBe('invalid-input');
      expect(result.error.message).toMatch(
        new RegExp(`invalid input for ${name.replace('.', '\\.')}|too large|not plain JSON`),
      );
      if (result.error.message.startsWith('invalid input')) expect(result.error.issues?.length).toBeGreaterThan(0);
      expectNoCoreCall();
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });
  });

  it('measures the payload before parsing it, and says so when it is too large', async () => {
    const result = await send('products.search', { environmentId: 'x', searchTerm: 'é'.repeat(MAX_MESSAGE_BYTES / 2) });
    expect(result).toMatchObject({ ok: false, error: { code: 'invalid-input' } });
    if (!result.ok) expect(result.error.message).toMatch(/too large \(\d+ bytes, at most 1000000\)/);
    const bigint = await send('products.search', { environmentId: 'x', searchTerm: 1n });
    expect(bigint).toMatchObject({ ok: false, error: { message: 'the call input is not plain JSON data' } });
    expectNoCoreCall();
  });

  it.each([
    ['a name that is not a call', 'orders.dropAll'],
    ['a prototype key', '__proto__'],
    ['a non-string name', 7],
  ])('refuses %s as an unknown call', async (_label, name) => {
    const result = await send(name, {});
    expect(result).toMatchObject({ ok: false, error: { code: 'unknown-call' } });
    expectNoCoreCall();
  });

  it.each([
    ['no frame (it went away)', () => null],
    ['a subframe of the window', () => new FakeFrame('app://rx-batch/')],
    [
      'the top frame showing another origin',
      () => Object.assign(window.webContents.mainFrame, { url: 'https://evil.example/' }),
    ],
    [
      'the top frame showing a file: page',
      () => Object.assign(window.webContents.mainFrame, { url: 'file:///tmp/x.html' }),
    ],
  ])('refuses a sender that is %s', async (_label, frame) => {
    const result = await send('app.info', {}, frame());
    expect(result).toEqual({ ok: false, error: { code: 'forbidden', message: 'not the Rx Batch window' } });
    expectNoCoreCall();
  });

  it('refuses calls once the window is destroyed', async () => {
    window.destroyed = true;
    expect(await send('app.info', {})).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    expectNoCoreCall();
  });

  it('forwards core events to the window, and stops (handler removed) when unbound', () => {
    const attention = {
      environmentId: 'local-sandbox',
      kind: 'sign-in-required',
      message: 'Sign in again.',
      orderIds: [],
      at: '2030-01-01T00:00:00.000Z',
    };
    events.emit('attention', attention);
    expect(window.webContents.send).toHaveBeenCalledWith(EVENT_CHANNEL, 'attention', attention);
    unbind();
    events.emit('attention', attention);
    expect(window.webContents.send).toHaveBeenCalledTimes(1);
    expect(ipcMain.handlers.has(CALL_CHANNEL)).toBe(false);
    unbind = () => {};
  });
});

describe('import.file by path over IPC', () => {
  const chosen = '/home/admin/batches/monday.csv';
  const importing = (path: string) => ({ environmentId: 'local-sandbox', path });
  const staged = { status: 'cancelled' };

  it('refuses a path the admin did not hand over in this window, before the core sees it', async () => {
    const result = await send('import.file', importing('/home/admin/.ssh/id_rsa'));
    expect(result).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    if (!result.ok) expect(result.error.message).toContain('not chosen in this window');
    expectNoCoreCall();
  });

  it('lets a granted path through to the core, exactly that string', async () => {
    grants.add([chosen], 'import');
    handlers['import.file'].mockResolvedValueOnce(staged);
    expect(await send('import.file', importing(chosen))).toEqual({ ok: true, value: staged });
    expect(handlers['import.file']).toHaveBeenCalledWith(importing(chosen));
    // Another spelling of the same file is not what was handed over.
    expect(await send('import.file', importing('/home/admin/batches/../batches/monday.csv'))).toMatchObject({
      ok: false,
      error: { code: 'forbidden' },
    });
  });

  it('leaves uploads alone: their text came from the page anyway', async () => {
    handlers['import.file'].mockResolvedValueOnce(staged);
    const upload = { environmentId: 'local-sandbox', upload: { name: 'a.csv', content: 'x' } };
    expect(await send('import.file', upload)).toEqual({ ok: true, value: staged });
  });

  it("grants a dropped file's path reported by the preload from the window, and nothing else", () => {
    const report = (path: unknown, senderFrame: FakeFrame | null = window.webContents.mainFrame) =>
      ipcMain.emit(DROPPED_PATH_CHANNEL, { senderFrame, sender: window.webContents }, path);
    report('/drops/tuesday.csv');
    report('/drops/from-a-subframe.csv', new FakeFrame('app://rx-batch/'));
    report('relative.csv');
    report({ path: '/drops/object.csv' });
    report(`/${'x'.repeat(5000)}.csv`);
    expect(grants.has('/drops/tuesday.csv', 'import')).toBe(true);
    // A drop is for reading: it never lets intake.start watch (and move files out of) a dropped folder.
    expect(grants.has('/drops/tuesday.csv', 'watch')).toBe(false);
    expect(grants.size).toBe(1);
    unbind();
    report('/drops/after-unbind.csv');
    expect(grants.size).toBe(1);
    expect(ipcMain.listenerCount(DROPPED_PATH_CHANNEL)).toBe(0);
    unbind = () => {};
  });
});

describe('jsonByteLength', () => {
  it('measures UTF-8 bytes and refuses what JSON cannot carry', () => {
    expect(jsonByteLength({ a: 'é' })).toBe(Buffer.byteLength('{"a":"é"}'));
    expect(jsonByteLength(undefined)).toBe(4);
    expect(jsonByteLength({ n: 1n })).toBeUndefined();
  });
});
