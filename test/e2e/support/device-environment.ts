import { DEVICE_CLIENT_ID } from '../../sandbox/identity/provider-config.js';
import { callBridge } from './bridge-client.js';
import type { BrowserModeApp } from './browser-mode.js';
import { localSandbox } from './workspace.js';

/**
 * An environment that signs in with a device code against the app's own local sandbox (whose preset uses client
 * credentials), added through the contract as the settings screen does.
 */
export async function addDeviceEnvironment(app: BrowserModeApp, id: string, name: string) {
  const { running: _running, ...local } = await localSandbox(app);
  return callBridge(app, 'environments.save', {
    create: true,
    environment: { ...local, id, name, kind: 'remote', clientId: DEVICE_CLIENT_ID, grant: 'device' },
  });
}
