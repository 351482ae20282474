import type { EnvironmentView, Grant } from '../../../../shared/environment.js';

export const GRANT_LABELS: Record<Grant, string> = {
  device: 'Device sign-in',
  client_credentials: 'Client credentials',
};

export function kindLabel(environment: EnvironmentView): string {
  return environment.kind === 'local-sandbox' ? 'Local sandbox' : 'Remote service';
}

/** Only the local sandbox is run by the app; a remote service's state is unknown until a connection check. */
export function stateLabel(environment: EnvironmentView): string {
  if (environment.kind !== 'local-sandbox') return 'Not checked';
  return environment.running ? 'Running' : 'Stopped';
}

/** What a fresh screen selects: the first running environment (the local sandbox), else the first. */
export function defaultEnvironment(environments: EnvironmentView[]): EnvironmentView | undefined {
  return environments.find((environment) => environment.running) ?? environments[0];
}
