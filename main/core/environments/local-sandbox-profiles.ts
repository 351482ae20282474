import type { Environment } from '../../../shared/environment.js';
import { LOCAL_SANDBOX_DEVICE_ID } from './presets.js';
import type { EnvironmentRegistry } from './registry.js';

/** Where this run's local sandbox listens and its two clients, as launchLocalSandbox started it. */
export interface SandboxRun {
  apiBaseUrl: string;
  issuer: string;
  deviceClientId: string;
}

/**
 * After the local sandbox started: its device sign-in environment points at it too, and when the sandbox had to
 * move (its remembered ports were taken), profiles the admin made against its previous addresses follow it, as
 * the system's re-point (signed out and audited, like any change of address: a new identity server anyway).
 * `previous` is the local sandbox's profile as stored before this run.
 */
export async function followLocalSandbox(
  registry: EnvironmentRegistry,
  previous: Environment,
  run: SandboxRun,
): Promise<void> {
  const device = registry.find(LOCAL_SANDBOX_DEVICE_ID);
  if (device) {
    await registry.update(
      { ...device, apiBaseUrl: run.apiBaseUrl, issuer: run.issuer, clientId: run.deviceClientId, grant: 'device' },
      { running: true, actor: 'system' },
    );
  }
  const oldOrigin = new URL(previous.apiBaseUrl).origin;
  const newOrigin = new URL(run.apiBaseUrl).origin;
  // The preset's placeholder (never started) has no port: nothing can have been made against it.
  if (new URL(previous.apiBaseUrl).port === '' || (oldOrigin === newOrigin && previous.issuer === run.issuer)) return;
  for (const environment of registry.list()) {
    if (environment.kind !== 'remote') continue;
    if (new URL(environment.apiBaseUrl).origin !== oldOrigin || environment.issuer !== previous.issuer) continue;
    const moved = new URL(environment.apiBaseUrl);
    const next = new URL(run.apiBaseUrl);
    moved.host = next.host;
    const { running: _running, ...profile } = environment;
    await registry.update({ ...profile, apiBaseUrl: moved.toString(), issuer: run.issuer }, { actor: 'system' });
  }
}
