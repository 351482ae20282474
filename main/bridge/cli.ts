import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { MemorySecretStore } from '../core/platform/secret-store.js';
import { exportDownloadsDir } from '../core/platform/export-files.js';
import { importFolders } from '../core/import-path-policy.js';
import { createLogger } from '../core/platform/logger.js';
import { ensurePrivateDir } from '../core/platform/private-files.js';
import { CoreClient } from '../host/core-client.js';
import { forkSpawner } from '../host/fork-spawner.js';
import { startBridge } from './bridge-server.js';
import { defaultDataDir } from './data-dir.js';
import { removeLauncher, writeLauncher } from './launcher-file.js';
import { dataDirHolder, openingServeText, serveWithoutUiText } from './serve-handoff.js';
import { onRememberedPort, rememberedPort, rememberPort } from './remembered-port.js';
import { openInBrowser } from './open-browser.js';

/**
 * `npm run start:browser`: the whole app in a browser tab. Starts the same core host as the desktop app, as a
 * child process (main/host/), serves the built renderer and the contract on 127.0.0.1 (relaying calls and events
 * to and from the core host), prints the address and opens it through a private launcher file that holds the
 * launch secret. If the core host dies it is restarted; the page says so meanwhile.
 */

const usage = `Usage: tsx main/bridge/cli.ts [--port N] [--data-dir DIR] [--import-dir DIR]... [--no-open]
  --port N          port on 127.0.0.1 (default: the one used last time if free, else any free port)
  --data-dir DIR    where Rx Batch keeps its data (default: RXBATCH_DATA_DIR, else ${defaultDataDir()})
  --import-dir DIR  files in DIR (and folders inside it) may be imported by their path, however large; without
                    it, files are only uploaded from the page. The page itself can never add a folder.
  --no-open         print the address without opening a browser (also when CI is set)`;

const repoRoot = resolve(import.meta.dirname, '../..');

function fail(message: string): never {
  console.error(message);
  process.exit(2);
}

function parsePort(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65_535) fail(`--port must be a number from 0 to 65535\n${usage}`);
  return port;
}

/**
 * `RXBATCH_SANDBOX_STEP_MS`: how fast the local sandbox moves orders along their statuses (default 30 s per
 * step), so a demonstration or an end-to-end test can watch orders reach "dispatched" in seconds.
 */
function sandboxStepMs(): number | undefined {
  const text = process.env.RXBATCH_SANDBOX_STEP_MS;
  if (!text) return undefined;
  if (!/^\d+$/.test(text) || Number(text) < 10)
    fail('RXBATCH_SANDBOX_STEP_MS must be a whole number of ms, 10 or more');
  return Number(text);
}

/**
 * `RXBATCH_SANDBOX_ADMIN=1`: end-to-end tests only. The local sandbox's admin routes (every stored order's raw body,
 * fault switches) exist for this run, behind a new token that is written to DATA_DIR/local-sandbox/admin-token
 * (0600) and nowhere else (not printed, not logged, not in any process's arguments or environment). Without it
 * the routes answer 404, as in the desktop app.
 */
function sandboxAdminRoutes(): boolean {
  const text = process.env.RXBATCH_SANDBOX_ADMIN;
  if (text === undefined || text === '' || text === '0') return false;
  if (text !== '1') fail('RXBATCH_SANDBOX_ADMIN must be 1 (or unset)');
  return true;
}

function appVersion(): string {
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version?: unknown };
  return typeof pkg.version === 'string' ? pkg.version : '0.0.0';
}

async function main(): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        port: { type: 'string' },
        'data-dir': { type: 'string' },
        'import-dir': { type: 'string', multiple: true },
        'no-open': { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
    }));
  } catch (error) {
    fail(`${error instanceof Error ? error.message : String(error)}\n${usage}`);
  }
  if (values.help) {
    console.log(usage);
    return;
  }
  const port = parsePort(values.port);
  if (values['data-dir'] === '') fail(`--data-dir needs a folder: it was given an empty value\n${usage}`);
  const dataDir = resolve(values['data-dir'] ?? (process.env.RXBATCH_DATA_DIR || defaultDataDir()));
  ensurePrivateDir(dataDir);
  // `rx-batch serve` holds this data: its page (--ui) is the app here, and a second core would only be refused.
  const holder = dataDirHolder(dataDir);
  if (holder.kind === 'serve') fail(serveWithoutUiText(dataDir, holder.pid));
  if (holder.kind === 'serve-ui') {
    console.log(openingServeText(dataDir, holder.pid));
    const opened = !values['no-open'] && !process.env.CI && openInBrowser(pathToFileURL(holder.launcher).href);
    console.log(`${opened ? 'Opened in your browser; to open it again, open' : 'To open it, open'} ${holder.launcher}`);
    return;
  }
  const staticDir = join(repoRoot, 'out', 'renderer');
  if (!existsSync(join(staticDir, 'index.html'))) fail('The renderer is not built yet: run `npm run build` first.');
  const logger = createLogger('rx-batch');
  const statusStepMs = sandboxStepMs();
  let importPaths;
  try {
    importPaths = await importFolders(values['import-dir'] ?? []);
  } catch (error) {
    fail(`--import-dir: ${error instanceof Error ? error.message : String(error)}\n${usage}`);
  }
  const core = new CoreClient({
    spawn: forkSpawner(),
    start: {
      dataDir,
      appVersion: appVersion(),
      transport: 'browser',
      // Sign-ins last for this run only, kept here rather than in the core host, so a restarted core keeps them.
      secrets: 'shell',
      // But the audit key and head must outlast the run: the plain 0600 file the CLI keeps (core/audit/chain-key.ts).
      auditKeys: 'plain-file',
      importPaths: { kind: 'folders', folders: [...(importPaths.folders ?? [])] },
      desktop: false,
      localSandbox: {
        start: true,
        ...(statusStepMs !== undefined ? { statusStepMs } : {}),
        adminRoutes: sandboxAdminRoutes(),
      },
    },
    services: { secrets: new MemorySecretStore() },
    logger,
  });
  await core.start();
  // The core writes browser-mode exports here; the bridge streams each to the page once (export-downloads.ts).
  const downloadsDir = exportDownloadsDir(dataDir);
  let bridge;
  try {
    // An explicit --port is used as given; otherwise last time's, so the page's origin (and what it keeps) stays.
    bridge =
      port !== undefined
        ? await startBridge({ core, staticDir, port, downloadsDir })
        : await onRememberedPort(rememberedPort(dataDir), (candidate) =>
            startBridge({ core, staticDir, port: candidate, downloadsDir }),
          );
    rememberPort(dataDir, bridge.port);
  } catch (error) {
    await core.stop();
    throw error;
  }
  const running = bridge;

  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    removeLauncher(dataDir);
    // The page first (no new calls), then the core host: it closes its database and sandbox, then exits.
    void running
      .close()
      .then(() => core.stop())
      .then(
        () => process.exit(0),
        () => process.exit(1),
      );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);

  // The secret goes into a 0600 file, never onto a command line or into this output (launcher-file.ts).
  const launcher = writeLauncher(dataDir, bridge.url);
  console.log(`Rx Batch is running at ${bridge.origin}/`);
  const opened = !values['no-open'] && !process.env.CI && openInBrowser(pathToFileURL(launcher).href);
  console.log(`${opened ? 'Opened in your browser; to open it again, open' : 'To open it, open'} ${launcher}`);
}

main().catch((error: unknown) => {
  console.error(`Rx Batch could not start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
