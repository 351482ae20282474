import { join } from 'node:path';
import type { Environment } from '../../shared/environment.js';
import { startSandbox, type RunningSandbox } from '../../sandbox/index.js';

/**
 * Starts the local stand-in for the Order Service (its own SQLite file under the data directory) and returns
 * the local environment's profile pointing at it, plus the service client's secret, which the caller hands to
 * the sign-in session like any other client secret.
 */
export async function launchLocalSandbox(
  preset: Environment,
  dataDir: string,
  options: { statusStepMs?: number } = {},
): Promise<{ sandbox: RunningSandbox; environment: Environment; clientSecret: string }> {
  const sandbox = await startSandbox({ dataDir: join(dataDir, 'local-sandbox'), ...options });
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
