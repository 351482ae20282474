import { join } from 'node:path';
import { followLocalSandbox } from './environments/local-sandbox-profiles.js';
import { LOCAL_SANDBOX_ID } from './environments/presets.js';
import type { AppServices } from './app-services.js';
import { launchLocalSandbox, LOCAL_SANDBOX_DIR } from './local-sandbox.js';
import type { Logger } from './platform/logger.js';
import { portOf, rememberedSandboxPorts } from './sandbox-addresses.js';

/**
 * The local sandbox as this process's own service: started on its remembered ports (others when they are taken),
 * its environments pointed at it, and its service account signed in. The app does this at every start; the CLI when
 * a command is about to talk to it, since only a process of this data directory can have it running (it holds the
 * lock), so without it the environment's address is a port nothing of ours listens on, or one another local user's
 * program took. Returns what stops it (after the services that use it).
 */
export async function startEmbeddedSandbox(
  services: AppServices,
  dataDir: string,
  options: { logger: Logger; statusStepMs?: number; adminRoutes?: boolean },
): Promise<() => Promise<void>> {
  const previous = services.registry.get(LOCAL_SANDBOX_ID);
  const local = await launchLocalSandbox(previous, dataDir, {
    ...(options.statusStepMs !== undefined ? { statusStepMs: options.statusStepMs } : {}),
    adminRoutes: options.adminRoutes === true,
  });
  try {
    await services.registry.update(local.environment, { running: true, actor: 'system' });
    await followLocalSandbox(services.registry, previous, {
      apiBaseUrl: local.sandbox.apiUrl,
      issuer: local.sandbox.issuer,
      deviceClientId: local.sandbox.deviceClient.clientId,
    });
    const signedIn = await services.signin.clientCredentials(LOCAL_SANDBOX_ID, local.clientSecret, {
      actor: 'system',
    });
    // The caller goes on; the connection check and calls will say what is wrong.
    if (!signedIn.ok) options.logger.warn('local sandbox sign-in failed', { code: signedIn.code });
  } catch (error) {
    await local.sandbox.close();
    throw error;
  }
  return () => local.sandbox.close();
}

/**
 * Whether an environment is served by the embedded sandbox: one of its kind still at the preset's address or at the
 * ports the embedded sandbox last had. One the admin pointed elsewhere (`rx-batch env add local-sandbox
 * --api-base-url …` at a sandbox of their own) is left as it is.
 */
export function servedByEmbeddedSandbox(environment: { kind: string; apiBaseUrl: string }, dataDir: string): boolean {
  if (environment.kind !== 'local-sandbox') return false;
  const url = new URL(environment.apiBaseUrl);
  if (url.port === '') return true;
  const remembered = rememberedSandboxPorts(join(dataDir, LOCAL_SANDBOX_DIR));
  return remembered !== undefined && portOf(environment.apiBaseUrl) === remembered.apiPort;
}
