import { ORDER_SERVICE_SCOPES, type EnvironmentView } from '../../../shared/environment.js';
import { DEVICE_CLIENT_ID } from '../../../sandbox/identity/provider-config.js';
import { callBridge } from './bridge-client.js';
import type { BrowserModeApp } from './browser-mode.js';
import { localSandbox } from './workspace.js';

/**
 * An environment that signs in with a device code against the app's own local sandbox (whose preset uses client
 * credentials), added through the contract as the Settings screen adds one; saving it starts its sending and
 * status tracking. Polls statuses every 5 s, the shortest the profile allows. Its id is made from the name.
 */
export async function addDeviceEnvironment(app: BrowserModeApp, name: string): Promise<EnvironmentView> {
  const { running: _running, ...local } = await localSandbox(app);
  const id = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, 40);
  return callBridge(app, 'environments.save', {
    create: true,
    environment: {
      ...local,
      id,
      name,
      kind: 'remote',
      clientId: DEVICE_CLIENT_ID,
      grant: 'device',
      scopes: [...ORDER_SERVICE_SCOPES],
      pollIntervalMs: 5_000,
    },
  });
}
