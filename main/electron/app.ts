import { isAbsolute, join } from 'node:path';
import { app, dialog, Menu, screen, session, shell, type BrowserWindow } from 'electron';
import { dataDirHolder, openingServeText, serveWithoutUiText } from '../bridge/serve-handoff.js';
import { ensurePrivateDir } from '../core/platform/private-files.js';
import { CoreClient } from '../host/core-client.js';
import { coreHostEntry } from '../host/host-entry.js';
import { appMenuTemplate } from './app-menu.js';
import { APP_URL, registerAppScheme, serveRenderer } from './app-protocol.js';
import { DesktopShell } from './desktop-integration.js';
import {
  askConfirm,
  askPlainTextSecrets,
  chooseFolder,
  chooseForImport,
  chooseImportFiles,
  chooseSavePath,
} from './dialogs.js';
import { openExternalIfAllowed, signInIssuers } from './external-links.js';
import { utilityProcessSpawner } from './core-host-process.js';
import { bindIpc } from './ipc.js';
import { filesFromSecondInstance, importFilesFromArgv, LaunchFiles, type SecondInstanceData } from './launch-files.js';
import { electronNotifier, notifyFromCoreEvents } from './notifications.js';
import { grantedPaths, PathGrants } from './path-grants.js';
import { chooseSecretStore } from './secret-store-choice.js';
import { createShellLogger } from './shell-log.js';
import { hardenSession, hardenWebContents } from './web-contents-hardening.js';
import { createMainWindow, MIN_HEIGHT, MIN_WIDTH } from './window.js';
import { loadWindowState, rememberWindowState, restoreBounds, WINDOW_STATE_FILE } from './window-state.js';

/**
 * The desktop shell: one instance, one hardened window, and the same core as every other mode, in a utility
 * process of its own (main/host/): main is window, preload, native dialogs, safeStorage, notifications and a relay.
 * Everything here is wiring; each piece lives (and is tested) in its own module.
 */

// The same directory browser mode defaults to (see main/bridge/data-dir.ts), so both modes share one store.
const dataDir = process.env.RXBATCH_DATA_DIR || join(app.getPath('appData'), 'rx-batch');
const logDir = join(dataDir, 'logs');
ensurePrivateDir(dataDir);
const logger = createShellLogger(logDir, { echo: !app.isPackaged });

// Every renderer sandboxed, whatever a window's options say; the app:// scheme registered before ready.
app.enableSandbox();
registerAppScheme();

const launchFiles = new LaunchFiles();
const ownFiles = importFilesFromArgv(process.argv.slice(1), process.cwd());
let core: CoreClient | undefined;
let mainWindow: BrowserWindow | undefined;
// Paths the admin handed over (dialogs, drops, the OS): the only ones `import.file` may read over IPC.
const grants = new PathGrants();

/** The two calls the link allow-list asks of the core, through its host. */
function issuerCalls(client: CoreClient) {
  return {
    'environments.list': (input: Record<string, never>) => client.request('environments.list', input),
    'signin.status': (input: { environmentId: string }) => client.request('signin.status', input),
  };
}

// Links may leave for the system browser only to the issuer of an environment being signed in to.
const links = {
  openExternal: (url: string) =>
    openExternalIfAllowed(url, () => (core ? signInIssuers(issuerCalls(core)) : Promise.resolve([])), shell),
};
app.on('web-contents-created', (_event, contents) => hardenWebContents(contents, links, logger));

function showWindow(): void {
  if (!mainWindow || mainWindow.isDestroyed()) return;
  if (mainWindow.isMinimized()) mainWindow.restore();
  mainWindow.show();
  mainWindow.focus();
}

function openFolder(path: string): void {
  void shell.openPath(path).then((problem) => {
    if (problem) logger.warn('folder could not be opened', { reason: problem });
  });
}

// The desktop calls of the contract: native dialogs, files handed over by the OS, the data folder.
const desktop = new DesktopShell({
  showOpenDialog: (purpose) => (mainWindow ? chooseForImport(mainWindow, purpose) : Promise.resolve([])),
  openPath: (path) => shell.openPath(path),
  confirm: (question) => askConfirm(mainWindow, question),
  showSaveDialog: (request) => chooseSavePath(mainWindow, request),
  dataDir,
  grants,
  announce: (files) => {
    core?.events.emit('import.requested', { files });
    showWindow();
  },
  logger,
});

function installMenu(window: BrowserWindow): void {
  const template = appMenuTemplate({
    platform: process.platform,
    devTools: !app.isPackaged,
    actions: {
      importFiles: () => void chooseImportFiles(window).then((files) => launchFiles.add(files)),
      importFolder: () =>
        void chooseFolder(window, 'Import a folder of batches').then((folder) => {
          if (folder) launchFiles.add([folder]);
        }),
      openDataFolder: () => openFolder(dataDir),
      openLogsFolder: () => openFolder(logDir),
    },
  });
  Menu.setApplicationMenu(Menu.buildFromTemplate(template));
}

/**
 * `rx-batch serve` holds the data directory (one writer per store): with `--ui` its page is the app, opened in the
 * browser from its launcher; without, the admin is told how to see it. Either way this app does not start a core.
 */
async function handedToServe(): Promise<boolean> {
  const holder = dataDirHolder(dataDir);
  if (holder.kind !== 'serve-ui' && holder.kind !== 'serve') return false;
  logger.info('data directory held by rx-batch serve', { ui: holder.kind === 'serve-ui' });
  if (holder.kind === 'serve-ui') {
    const problem = await shell.openPath(holder.launcher);
    if (problem) logger.warn('serve page could not be opened', { reason: problem });
  }
  await dialog.showMessageBox({
    type: holder.kind === 'serve-ui' ? 'info' : 'warning',
    title: 'Rx Batch',
    message: 'Rx Batch is running as a service (rx-batch serve)',
    detail:
      holder.kind === 'serve-ui'
        ? `${openingServeText(dataDir, holder.pid)} If it did not open, open ${holder.launcher} in a browser.`
        : serveWithoutUiText(dataDir, holder.pid),
    buttons: ['OK'],
  });
  app.exit(holder.kind === 'serve-ui' ? 0 : 1);
  return true;
}

async function start(): Promise<void> {
  await app.whenReady();
  logger.info('starting', { version: app.getVersion(), packaged: app.isPackaged, platform: process.platform });
  if (await handedToServe()) return;
  hardenSession(session.defaultSession);
  serveRenderer(join(import.meta.dirname, '../renderer'));

  const secrets = await chooseSecretStore({ dataDir, logger, askPlainText: askPlainTextSecrets });
  // The core runs in a utility process; what only main can do (safeStorage, dialogs, the paths the admin handed
  // over) it asks for over the host protocol, and main serves it from here.
  core = new CoreClient({
    spawn: utilityProcessSpawner(coreHostEntry(import.meta.url)),
    start: {
      dataDir,
      appVersion: app.getVersion(),
      transport: 'electron',
      secrets: 'shell',
      // The audit key lives with sign-ins (safeStorage) when they last, else in the plain 0600 file the CLI and
      // browser mode keep theirs in; that file's key is read to check what they wrote (core/audit/chain-key.ts).
      ...(secrets.persistent ? { checkPlainFileAuditKey: true } : { auditKeys: 'plain-file' as const }),
      // ipc.ts refuses other paths before relaying; the core asks main again, for every transport's sake.
      importPaths: { kind: 'shell' },
      desktop: true,
      localSandbox: { start: true },
    },
    services: {
      secrets: secrets.store,
      desktop,
      importPaths: grantedPaths(grants),
    },
    logger,
  });
  await core.start();
  const client = core;

  const stateFile = join(dataDir, WINDOW_STATE_FILE);
  const saved = loadWindowState(stateFile);
  const primary = screen.getPrimaryDisplay();
  const workAreas = [primary, ...screen.getAllDisplays().filter((display) => display.id !== primary.id)].map(
    (display) => display.workArea,
  );
  const window = createMainWindow(
    join(import.meta.dirname, '../preload/preload.cjs'),
    restoreBounds(saved, workAreas, { width: MIN_WIDTH, height: MIN_HEIGHT }),
    !app.isPackaged,
  );
  mainWindow = window;
  if (saved?.maximized) window.maximize();
  rememberWindowState(window, stateFile, logger);
  installMenu(window);

  const unbind = bindIpc(client, window, grants);
  const stopNotifications = notifyFromCoreEvents(client.events, {
    notifier: electronNotifier,
    isWindowFocused: () => !window.isDestroyed() && window.isFocused(),
    focusWindow: showWindow,
  });
  // Files to import (the command line, a second launch, macOS open-file, the File menu) are checked and wait for
  // the page, which takes them when `import.requested` says so or when it starts (the first launch's own files
  // arrive before it loads). Only counts are logged, never names.
  launchFiles.add(ownFiles);
  const stopLaunchFiles = launchFiles.setHandler((paths) => {
    desktop.requestImport(paths).catch((error: unknown) => {
      logger.error('files could not be handed to the importer', {
        reason: error instanceof Error ? error.name : 'unknown',
      });
    });
  });

  app.on('window-all-closed', () => app.quit());
  let closed = false;
  app.on('will-quit', (event) => {
    if (closed || !core) return;
    // Hold the quit until the core host has closed its database and the local sandbox, and exited.
    event.preventDefault();
    unbind();
    stopNotifications();
    stopLaunchFiles();
    void core.stop().finally(() => {
      closed = true;
      app.quit();
    });
  });
  await window.loadURL(APP_URL);
}

// A second launch hands its files to this instance and quits; this one comes to the front.
const secondInstanceData: SecondInstanceData = { files: ownFiles };
if (app.requestSingleInstanceLock(secondInstanceData)) {
  app.on('second-instance', (_event, argv, workingDirectory, additionalData) => {
    launchFiles.add(filesFromSecondInstance(argv, workingDirectory, additionalData));
    showWindow();
  });
  // macOS delivers "Open with" and dropped-on-Dock files and folders as events, before or after ready; what
  // they are is checked when they are handed to the importer.
  app.on('open-file', (event, path) => {
    event.preventDefault();
    if (isAbsolute(path)) launchFiles.add([path]);
    showWindow();
  });
  start().catch((error: unknown) => {
    logger.error('start failed', { reason: error instanceof Error ? error.name : 'unknown' });
    console.error(`Rx Batch could not start: ${error instanceof Error ? error.message : String(error)}`);
    app.exit(1);
  });
} else {
  app.quit();
}
