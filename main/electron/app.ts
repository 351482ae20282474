import { join } from 'node:path';
import { app } from 'electron';
import { createCore } from '../core/app-core.js';
import { MemorySecretStore } from '../core/auth/secret-store.js';
import { createLogger } from '../core/logger.js';
import { ensurePrivateDir } from '../core/store/private-files.js';
import { APP_URL, registerAppScheme, serveRenderer } from './app-protocol.js';
import { bindIpc } from './ipc.js';
import { createMainWindow } from './window.js';

/** The desktop shell: one instance, one hardened window, the same core as every other transport. */

registerAppScheme();

async function start(): Promise<void> {
  await app.whenReady();
  const logger = createLogger('rx-batch');
  serveRenderer(join(import.meta.dirname, '../renderer'));
  // The same directory browser mode defaults to (see data-dir.ts), so both modes share one store.
  const dataDir = process.env.RXBATCH_DATA_DIR || join(app.getPath('appData'), 'rx-batch');
  ensurePrivateDir(dataDir);
  const core = await createCore({
    dataDir,
    appVersion: app.getVersion(),
    transport: 'electron',
    // Secrets live for this run only until the shell's safeStorage-backed store lands (the desktop shell issue).
    secrets: new MemorySecretStore(),
    logger,
  });

  const window = createMainWindow(join(import.meta.dirname, '../preload/preload.cjs'));
  const unbind = bindIpc(core, window);
  app.on('second-instance', () => {
    if (window.isMinimized()) window.restore();
    window.focus();
  });
  app.on('window-all-closed', () => app.quit());

  let closed = false;
  app.on('will-quit', (event) => {
    if (closed) return;
    // Hold the quit until the core has closed its database and the local sandbox.
    event.preventDefault();
    unbind();
    void core.close().finally(() => {
      closed = true;
      app.quit();
    });
  });
  await window.loadURL(APP_URL);
}

if (app.requestSingleInstanceLock()) {
  start().catch((error: unknown) => {
    console.error(`Rx Batch could not start: ${error instanceof Error ? error.message : String(error)}`);
    app.exit(1);
  });
} else {
  app.quit();
}
