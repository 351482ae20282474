import type { EnvironmentView } from '../../../../shared/environment.js';
import { defaultEnvironment } from '../environments/environment-labels.js';

/** The chosen environment while it exists, else the default (the running local sandbox). */
export function resolveEnvironment(
  environments: EnvironmentView[],
  chosenId: string | undefined,
): EnvironmentView | undefined {
  return environments.find((environment) => environment.id === chosenId) ?? defaultEnvironment(environments);
}

const LEGACY_KEY = 'rxbatch.environment';

/**
 * The choice an earlier version kept in the page (before the core remembered it), read once so an upgrade keeps
 * it; the page's copy is then dropped.
 */
export function takeLegacyChoice(): string | undefined {
  try {
    const id = window.localStorage.getItem(LEGACY_KEY) ?? undefined;
    window.localStorage.removeItem(LEGACY_KEY);
    return id;
  } catch {
    return undefined;
  }
}
