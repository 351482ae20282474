import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CALL_CHANNEL } from '../../main/electron/channels.js';
import { electronEvent, app, BrowserWindow, ipcMain, Menu, protocol, session } from './electron-double.js';

/**
 * The shell's entry (app.ts) with Electron replaced by the double and everything else real: the core on a temp
 * data directory, its local sandbox on a loopback port, the log file, the window-state file.
 */

vi.mock('electron', () => import('./electron-double.js'));

let dataDir: string;
let window: BrowserWindow;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'rxbatch-shell-'));
  vi.stubEnv('RXBATCH_DATA_DIR', dataDir);
  await import('../../main/electron/app.js');
  await vi.waitFor(
    () => {
      const created = BrowserWindow.created[0];
      expect(created?.loadURL).toHaveBeenCalledWith('app://rx-batch/');
      window = created as BrowserWindow;
    },
    { timeout: 20_000, interval: 50 },
  );
}, 30_000);

afterAll(async () => {
  // Quitting holds the quit until the core has closed (database, local sandbox), then quits for real.
  const quit = electronEvent({});
  app.emit('will-quit', quit);
  expect(quit.preventDefault).toHaveBeenCalled();
  await vi.waitFor(() => expect(app.quit).toHaveBeenCalled(), { timeout: 20_000 });
  vi.unstubAllEnvs();
  rmSync(dataDir, { recursive: true, force: true });
}, 30_000);

function call(name: string, input: unknown) {
  const handler = ipcMain.handlers.get(CALL_CHANNEL);
  if (!handler) throw new Error('no IPC handler');
  return handler({ senderFrame: window.webContents.mainFrame }, name, input);
}

describe('the desktop shell, wired', () => {
  it('holds the single-instance lock, sandboxes every renderer and registers app:// before ready', () => {
    expect(app.requestSingleInstanceLock).toHaveBeenCalledWith({ files: [] });
    expect(app.enableSandbox).toHaveBeenCalled();
    expect(protocol.privileged.map((entry) => entry.scheme)).toContain('app');
    expect(protocol.handlers.has('app')).toBe(true);
  });

  it('hardens the window it creates, and the default session', () => {
    expect(window.webContents.listenerCount('will-navigate')).toBe(1);
    expect(window.webContents.windowOpenHandler?.({ url: 'https://evil.example/' })).toEqual({ action: 'deny' });
    const callback = vi.fn();
    session.defaultSession.permissionRequestHandler?.(window.webContents, 'media', callback, {});
    expect(callback).toHaveBeenCalledWith(false);
    expect((window.options.webPreferences as Record<string, unknown>).sandbox).toBe(true);
  });

  it('opens the window on a display, at the default size the first time', () => {
    expect(window.options).toMatchObject({ x: 360, y: 115, width: 1200, height: 820 });
  });

  it('serves the real core over IPC, to the window only', async () => {
    expect(await call('app.info', {})).toEqual({
      ok: true,
      value: { name: 'Rx Batch', version: '0.1.0-test', transport: 'electron', dataDir: expect.any(String) as string },
    });
    const stranger = await ipcMain.handlers.get(CALL_CHANNEL)?.({ senderFrame: null }, 'app.info', {});
    expect(stranger).toMatchObject({ ok: false, error: { code: 'forbidden' } });
  });

  it('installs the application menu with its import items', () => {
    const json = JSON.stringify(Menu.current?.template);
    expect(json).toContain('"id":"import-files"');
    expect(json).toContain('"role":"editMenu"');
  });

  it('brings the window forward when a second instance starts', () => {
    window.minimized = true;
    window.focused = false;
    app.emit('second-instance', electronEvent({}), ['/opt/rx-batch', '--flag'], '/home/admin', { files: [] });
    expect(window.minimized).toBe(false);
    expect(window.focused).toBe(true);
  });

  it('logs to a file in the data directory, and remembers the window when it closes', () => {
    const log = readFileSync(join(dataDir, 'logs', 'rx-batch.log'), 'utf8');
    expect(log).toContain('"message":"starting"');
    window.normalBounds = { x: 100, y: 50, width: 1000, height: 700 };
    window.emit('close');
    expect(JSON.parse(readFileSync(join(dataDir, 'window-state.json'), 'utf8'))).toEqual({
      x: 100,
      y: 50,
      width: 1000,
      height: 700,
      maximized: false,
    });
  });

  it("keeps the local sandbox's sign-in in the safeStorage-sealed secrets file", () => {
    const file = join(dataDir, 'secrets.json');
    expect(existsSync(file)).toBe(true);
    const secrets = JSON.parse(readFileSync(file, 'utf8')) as { codec: string; entries: Record<string, string> };
    expect(secrets.codec).toBe('electron-safe-storage');
    expect(Object.keys(secrets.entries).length).toBeGreaterThan(0);
  });
});
