import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { writeLauncher } from '../../main/bridge/launcher-file.js';
import { acquireDataDirLock, type DataDirLock } from '../../main/core/store/data-dir-lock.js';
import type * as ElectronDouble from './electron-double.js';

/**
 * The desktop shell's entry (app.ts) started on a data directory `rx-batch serve` holds: with `--ui` it opens serve's
 * launcher in the browser and says so; without, it says to restart serve with --ui; either way no core host is
 * forked and no window opens. Serve is stood in for by this process holding the lock under serve's name.
 */

vi.mock('electron', () => import('./electron-double.js'));

let dataDir: string | undefined;
let lock: DataDirLock | undefined;

afterEach(() => {
  lock?.release();
  vi.unstubAllEnvs();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  lock = dataDir = undefined;
});

/** The shell started afresh (its module runs on import) with the double's fresh state. */
async function startShell(dir: string) {
  vi.resetModules();
  vi.stubEnv('RXBATCH_DATA_DIR', dir);
  // What the shell's `import 'electron'` gets: the double, as fresh as the shell.
  const electron = (await import('electron')) as unknown as typeof ElectronDouble;
  await import('../../main/electron/app.js');
  await vi.waitFor(() => expect(electron.app.exit).toHaveBeenCalled(), { timeout: 10_000 });
  return electron;
}

describe('the desktop shell on a data directory rx-batch serve holds', () => {
  it('opens serve --ui’s page from its launcher instead of starting a core', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'rxbatch-shell-serve-'));
    lock = acquireDataDirLock(dataDir, 'rx-batch serve');
    const launcher = writeLauncher(dataDir, 'http://127.0.0.1:9/#secret=s');
    const { app, dialog, shell, utilityProcess, BrowserWindow } = await startShell(dataDir);
    expect(shell.openPath).toHaveBeenCalledWith(launcher);
    expect(app.exit).toHaveBeenCalledWith(0);
    const [options] = dialog.showMessageBox.mock.calls[0] as [{ detail: string }];
    expect(options.detail).toContain(`in use by rx-batch serve (PID ${process.pid}), which serves the app itself`);
    expect(utilityProcess.fork).not.toHaveBeenCalled();
    expect(BrowserWindow.created).toHaveLength(0);
  });

  it('says to restart serve with --ui when serve runs without it (a launcher of another PID does not count)', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'rxbatch-shell-serve-'));
    lock = acquireDataDirLock(dataDir, 'rx-batch serve');
    writeLauncher(dataDir, 'http://127.0.0.1:9/#secret=s', 1);
    const { app, dialog, shell, utilityProcess } = await startShell(dataDir);
    expect(shell.openPath).not.toHaveBeenCalled();
    expect(app.exit).toHaveBeenCalledWith(1);
    const [options] = dialog.showMessageBox.mock.calls[0] as [{ detail: string }];
    expect(options.detail).toContain('started without --ui');
    expect(options.detail).toContain('restart serve with --ui');
    expect(utilityProcess.fork).not.toHaveBeenCalled();
  });
});
