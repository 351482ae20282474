import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Environment } from '../../shared/environment.js';
import { startSandbox, type RunningSandbox } from '../../sandbox/index.js';
import { ensurePrivateFile } from './platform/private-files.js';
import { onRememberedPorts, portOf, rememberedSandboxPorts, rememberSandboxPorts } from './sandbox-addresses.js';

/** Where the embedded sandbox keeps its files, under the data directory. */
export const LOCAL_SANDBOX_DIR = 'local-sandbox';
/** The admin token's file in that folder (0600), present only while a test-only launch has the admin routes on. */
export const ADMIN_TOKEN_FILE = 'admin-token';

/**
 * Starts the local stand-in for the Order Service (its own SQLite file under the data directory) and returns
 * the local environment's profile pointing at it, plus the service client's secret, which the caller hands to
 * the sign-in session like any other client secret.
 *
 * Its admin routes (every stored order's raw body, fault switches) are off: they answer 404. Only end-to-end
 * tests turn them on (`adminRoutes`, from browser mode's `RXBATCH_SANDBOX_ADMIN=1`); the launch's token is then
 * written to `local-sandbox/admin-token` (0600) for the test to read, never printed or logged, and removed on
 * close.
 */
export async function launchLocalSandbox(
  preset: Environment,
  dataDir: string,
  options: { statusStepMs?: number; adminRoutes?: boolean } = {},
): Promise<{ sandbox: RunningSandbox; environment: Environment; clientSecret: string }> {
  const sandboxDir = join(dataDir, LOCAL_SANDBOX_DIR);
  const tokenFile = join(sandboxDir, ADMIN_TOKEN_FILE);
  // The same addresses as last time when they are free (sandbox-addresses.ts).
  const started = await onRememberedPorts(rememberedSandboxPorts(sandboxDir), (ports) =>
    startSandbox({
      dataDir: sandboxDir,
      adminRoutes: options.adminRoutes === true,
      // Sign-ins made against it outlive a restart, as against a real service.
      persistIdentity: true,
      ...(ports ? { port: ports.apiPort, identityPort: ports.identityPort } : {}),
      ...(options.statusStepMs !== undefined ? { statusStepMs: options.statusStepMs } : {}),
    }),
  );
  rememberSandboxPorts(sandboxDir, { apiPort: portOf(started.apiUrl), identityPort: portOf(started.issuer) });
  // A token left by an earlier test launch that did not close cleanly opens nothing now, but goes.
  rmSync(tokenFile, { force: true });
  if (started.adminToken !== null) {
    ensurePrivateFile(tokenFile);
    writeFileSync(tokenFile, started.adminToken);
  }
  const sandbox: RunningSandbox = {
    ...started,
    close: async () => {
      try {
        await started.close();
      } finally {
        rmSync(tokenFile, { force: true });
      }
    },
  };
  return {
    sandbox,
    clientSecret: sandbox.serviceClient.clientSecret,
    environment: {
      ...preset,
      apiBaseUrl: sandbox.apiUrl,
      issuer: sandbox.issuer,
      clientId: sandbox.serviceClient.clientId,
      grant: 'client_credentials',
    },
  };
}
