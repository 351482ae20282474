import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CALL_CHANNEL, DROPPED_PATH_CHANNEL, EVENT_CHANNEL } from '../../main/electron/channels.js';
import { MENU_IDS } from '../../main/electron/app-menu.js';
import {
  electronEvent,
  app,
  BrowserWindow,
  dialog,
  ipcMain,
  Menu,
  protocol,
  session,
  shell,
  utilityProcess,
  UtilityProcess,
} from './electron-double.js';

/**
 * The shell's entry (app.ts) with Electron replaced by the double and everything else real: the core on a temp
 * data directory, its local sandbox on a loopback port, the log file, the window-state file.
 */

vi.mock('electron', () => import('./electron-double.js'));

let dataDir: string;
let window: BrowserWindow;
/** What the entry asked of `app` while it started (Vitest clears mock calls before each test). */
let startup: { singleInstanceLock: unknown[][]; enableSandbox: number; forks: unknown[][] };
/** Batches the admin hands over, outside the data directory. */
let batches: string;
const TEMPLATE_EXAMPLE = join(import.meta.dirname, '../fixtures/import/template-example.csv');

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'rxbatch-shell-'));
  batches = mkdtempSync(join(tmpdir(), 'rxbatch-shell-batches-'));
  copyFileSync(TEMPLATE_EXAMPLE, join(batches, 'monday.csv'));
  mkdirSync(join(batches, 'tuesday'));
  copyFileSync(TEMPLATE_EXAMPLE, join(batches, 'tuesday', 'a.csv'));
  writeFileSync(join(batches, 'tuesday', 'scan.pdf'), '%PDF');
  vi.stubEnv('RXBATCH_DATA_DIR', dataDir);
  await import('../../main/electron/app.js');
  startup = {
    singleInstanceLock: [...app.requestSingleInstanceLock.mock.calls],
    enableSandbox: app.enableSandbox.mock.calls.length,
    forks: [],
  };
  await vi.waitFor(
    () => {
      const created = BrowserWindow.created[0];
      expect(created?.loadURL).toHaveBeenCalledWith('app://rx-batch/');
      window = created as BrowserWindow;
    },
    { timeout: 20_000, interval: 50 },
  );
  // The window opens once the core host answered: its fork has happened by now.
  startup.forks = [...utilityProcess.fork.mock.calls];
}, 30_000);

afterAll(async () => {
  // Quitting holds the quit until the core has closed (database, local sandbox), then quits for real.
  const quit = electronEvent({});
  app.emit('will-quit', quit);
  expect(quit.preventDefault).toHaveBeenCalled();
  await vi.waitFor(() => expect(app.quit).toHaveBeenCalled(), { timeout: 20_000 });
  vi.unstubAllEnvs();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(batches, { recursive: true, force: true });
}, 30_000);

function call(name: string, input: unknown) {
  const handler = ipcMain.handlers.get(CALL_CHANNEL);
  if (!handler) throw new Error('no IPC handler');
  return handler({ senderFrame: window.webContents.mainFrame }, name, input);
}

describe('the desktop shell, wired', () => {
  it('holds the single-instance lock, sandboxes every renderer and registers app:// before ready', () => {
    expect(startup.singleInstanceLock).toEqual([[{ files: [] }]]);
    expect(startup.enableSandbox).toBeGreaterThan(0);
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
      value: {
        name: 'Rx Batch',
        version: '0.1.0-test',
        transport: 'electron',
        dataDir,
        desktop: { fileDialogs: true, openDataFolder: true, confirmRetention: true },
      },
    });
    const stranger = await ipcMain.handlers.get(CALL_CHANNEL)?.({ senderFrame: null }, 'app.info', {});
    expect(stranger).toMatchObject({ ok: false, error: { code: 'forbidden' } });
  });

  it('runs the core in a utility process of its own, started from the core host entry', () => {
    expect(startup.forks).toHaveLength(1);
    const [entry, , options] = startup.forks[0] as [string, unknown, unknown];
    expect(entry).toMatch(/core-host\.(js|ts)$/);
    expect(options).toMatchObject({ serviceName: 'Rx Batch core' });
    expect(UtilityProcess.forked[0]?.pid).toBeGreaterThan(0);
    expect(UtilityProcess.forked[0]?.pid).not.toBe(process.pid);
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

/** The events main sent to the window, by name. */
function sentEvents(name: string): unknown[] {
  return window.webContents.send.mock.calls
    .filter(([channel, event]) => channel === EVENT_CHANNEL && event === name)
    .map(([, , payload]) => payload as unknown);
}

async function importByPath(path: string) {
  return (await call('import.file', { environmentId: 'local-sandbox', path })) as {
    ok: boolean;
    value?: { status: string; batchId?: number; orders?: number };
    error?: { code: string; message: string };
  };
}

describe('files handed to the desktop app reach the importer', () => {
  it("a second launch's files: announced to the page, taken once, imported through the same call as the UI's", async () => {
    window.webContents.send.mockClear();
    const monday = join(batches, 'monday.csv');
    app.emit('second-instance', electronEvent({}), ['/opt/rx-batch', monday], '/home/admin', { files: [monday] });
    await vi.waitFor(() => expect(sentEvents('import.requested')).toEqual([{ files: 1 }]), { timeout: 10_000 });
    expect(await call('import.takeRequested', {})).toEqual({ ok: true, value: { paths: [monday], skipped: [] } });
    expect(await call('import.takeRequested', {})).toEqual({ ok: true, value: { paths: [], skipped: [] } });

    const imported = await importByPath(monday);
    expect(imported).toMatchObject({ ok: true, value: { status: 'staged', orders: 3 } });
    // The page follows the import as it does its own: progress, then the new batch.
    expect(sentEvents('import.progress').length).toBeGreaterThan(0);
    expect(sentEvents('batches.changed')).toContainEqual({
      environmentId: 'local-sandbox',
      batchId: imported.value?.batchId,
    });
  });

  it('macOS open-file with a folder: its batches are imported, the other files are explained', async () => {
    window.webContents.send.mockClear();
    const opened = electronEvent({});
    app.emit('open-file', opened, join(batches, 'tuesday'));
    expect(opened.preventDefault).toHaveBeenCalled();
    await vi.waitFor(() => expect(sentEvents('import.requested')).toEqual([{ files: 2 }]), { timeout: 10_000 });
    expect(await call('import.takeRequested', {})).toEqual({
      ok: true,
      value: {
        paths: [join(batches, 'tuesday', 'a.csv')],
        skipped: [{ name: 'scan.pdf', reason: 'not a CSV or HL7 file' }],
      },
    });
  });

  it("File → Import Files…: the native dialog's choice goes the same way", async () => {
    window.webContents.send.mockClear();
    dialog.showOpenDialog.mockResolvedValueOnce({ canceled: false, filePaths: [join(batches, 'monday.csv')] });
    const items = (Menu.current?.template as Array<{ submenu?: Array<{ id?: string; click?: () => void }> }>).flatMap(
      (menu) => menu.submenu ?? [],
    );
    items.find((item) => item.id === MENU_IDS.importFiles)?.click?.();
    await vi.waitFor(() => expect(sentEvents('import.requested')).toEqual([{ files: 1 }]), { timeout: 10_000 });
    expect(dialog.showOpenDialog.mock.calls.at(-1)?.[0]).toBe(window);
    expect(await call('import.takeRequested', {})).toMatchObject({ value: { paths: [join(batches, 'monday.csv')] } });
  });

  it('files.choose from the page shows the dialog, and only what was chosen can then be imported by path', async () => {
    const chosen = join(batches, 'tuesday', 'a.csv');
    dialog.showOpenDialog.mockResolvedValueOnce({ canceled: false, filePaths: [chosen] });
    expect(await call('files.choose', { purpose: 'import' })).toEqual({
      ok: true,
      value: { ok: true, paths: [chosen], skipped: [] },
    });
    expect(await importByPath(chosen)).toMatchObject({ ok: true, value: { status: 'staged' } });

    const typed = await importByPath(join(batches, 'tuesday', 'scan.pdf'));
    expect(typed).toMatchObject({ ok: false, error: { code: 'forbidden' } });
  });

  it("a dropped file's path, reported by the preload, can be imported", async () => {
    const dropped = join(batches, 'dropped.csv');
    copyFileSync(TEMPLATE_EXAMPLE, dropped);
    expect(await importByPath(dropped)).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    ipcMain.emit(DROPPED_PATH_CHANNEL, { senderFrame: window.webContents.mainFrame }, dropped);
    expect(await importByPath(dropped)).toMatchObject({ ok: true, value: { status: 'staged' } });
  });

  it('app.openDataFolder opens the data directory in the file manager', async () => {
    shell.openPath.mockClear();
    expect(await call('app.openDataFolder', {})).toEqual({ ok: true, value: { ok: true } });
    expect(shell.openPath).toHaveBeenCalledWith(dataDir);
  });

  it('logs how many files were handed over, never their names or folders', () => {
    const log = readFileSync(join(dataDir, 'logs', 'rx-batch.log'), 'utf8');
    expect(log).toContain('"message":"files handed over for import"');
    expect(log).not.toContain(batches);
    expect(log).not.toMatch(/monday|tuesday|dropped\.csv/);
  });
});

describe('when the core host dies', () => {
  it('the window hears it at once, main restarts it, and the restarted core answers with the sign-ins main kept', async () => {
    window.webContents.send.mockClear();
    const first = UtilityProcess.forked.at(-1)!;
    first.child.kill('SIGKILL');
    await vi.waitFor(
      () => expect(sentEvents('app.core')).toContainEqual(expect.objectContaining({ state: 'restarting' })),
      {
        timeout: 10_000,
      },
    );
    await vi.waitFor(() => expect(sentEvents('app.core')).toContainEqual({ state: 'running' }), { timeout: 30_000 });
    expect(UtilityProcess.forked).toHaveLength(2);
    expect(await call('app.info', {})).toMatchObject({ ok: true, value: { transport: 'electron' } });
    expect(await call('signin.status', { environmentId: 'local-sandbox' })).toMatchObject({
      ok: true,
      value: { signedIn: true },
    });
  }, 40_000);
});
