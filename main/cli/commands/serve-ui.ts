import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startBridge, type RunningBridge } from '../../bridge/bridge-server.js';
import { removeLauncher, writeLauncher } from '../../bridge/launcher-file.js';
import { onRememberedPort, rememberedPort, rememberPort } from '../../bridge/remembered-port.js';
import { guardImportPaths } from '../../core/app-core.js';
import { buildHandlers } from '../../core/app-handlers.js';
import type { AppServices } from '../../core/app-services.js';
import { NO_PATH } from '../../core/import-path-policy.js';
import { servedIntakeHandlers } from '../../core/intake/intake-handlers.js';
import type { ServedIntake } from '../../core/intake/served-intake.js';
import { exportDownloadsDir } from '../../core/platform/export-files.js';
import { inProcessConnection } from '../../transport/core-connection.js';
import { UsageError } from '../cli-errors.js';

/**
 * `rx-batch serve --ui`: the app's page over serve's own services, so an admin can see the intake and review what it
 * holds while it runs, with serve the only writer of the store. It is browser mode's bridge (main/bridge/) with
 * every check it makes: 127.0.0.1 only, the `Host` and `Origin` its own, the launch secret presented on the socket
 * (kept in the 0600 launcher file in the data directory, never printed), the page's CSP, exports downloaded once.
 * The handlers are the core's, composed here as browser mode composes them (uploads only: no path can be imported),
 * except the intake's: the page shows serve's listener and folders and cannot start or stop an intake
 * (`servedIntakeHandlers`). The app started on this data directory opens the launcher (bridge/serve-handoff.ts).
 */

/** The built page (`npm run build`); `RXBATCH_RENDERER_DIR` names another build (the CLI's tests run before it). */
function rendererDir(): string {
  return resolve(process.env.RXBATCH_RENDERER_DIR || join(import.meta.dirname, '../../../out/renderer'));
}

/** `--ui`'s address: empty for the default (127.0.0.1, the port of last time if free, else any free one). */
export function uiPort(text: string): number | undefined {
  if (text === '') return undefined;
  const at = text.lastIndexOf(':');
  const host = at >= 0 ? text.slice(0, at) : '127.0.0.1';
  const portText = at >= 0 ? text.slice(at + 1) : text;
  if (host !== '127.0.0.1' && host !== 'localhost') {
    throw new UsageError(
      `--ui listens on 127.0.0.1 only, not "${host}": the page can sign in and send orders, so it is never offered ` +
        'to the network (reach it from elsewhere through an SSH tunnel)',
    );
  }
  const port = Number(portText);
  if (!/^\d{1,5}$/.test(portText) || port > 65_535) throw new UsageError(`--ui takes [127.0.0.1:]PORT, not "${text}"`);
  return port === 0 ? undefined : port;
}

export interface ServeUi {
  /** `http://127.0.0.1:PORT`, without the secret. */
  origin: string;
  close(): Promise<void>;
}

export async function startServeUi(options: {
  services: AppServices;
  dataDir: string;
  appVersion: string;
  intake: ServedIntake;
  port: number | undefined;
}): Promise<ServeUi> {
  const { services, dataDir } = options;
  const staticDir = rendererDir();
  if (!existsSync(join(staticDir, 'index.html'))) {
    throw new UsageError('--ui needs the built page: run `npm run build` first');
  }
  const info = { name: 'Rx Batch', version: options.appVersion, transport: 'browser' as const, dataDir };
  const handlers = {
    ...guardImportPaths(buildHandlers(services, info, undefined, NO_PATH), NO_PATH),
    ...servedIntakeHandlers(options.intake, process.pid),
  };
  const core = inProcessConnection({ handlers, events: services.events });
  const downloadsDir = exportDownloadsDir(dataDir);
  const start = (port: number) => startBridge({ core, staticDir, port, downloadsDir });
  // As browser mode: the port of last time when free, so the page's origin (what it keeps in the browser) stays.
  const bridge: RunningBridge =
    options.port !== undefined ? await start(options.port) : await onRememberedPort(rememberedPort(dataDir), start);
  rememberPort(dataDir, bridge.port);
  writeLauncher(dataDir, bridge.url);
  return {
    origin: bridge.origin,
    async close() {
      removeLauncher(dataDir);
      await bridge.close();
    },
  };
}
