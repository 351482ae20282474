import type { EnvironmentView } from '../../../../shared/environment.js';
import { defaultEnvironment } from '../environments/environment-labels.js';

const STORAGE_KEY = 'rxbatch.environment';

export function readSelectedEnvironmentId(): string | undefined {
  try {
    return window.localStorage.getItem(STORAGE_KEY) ?? undefined;
  } catch {
    return undefined;
  }
}

export function saveSelectedEnvironmentId(id: string): void {
  try {
    window.localStorage.setItem(STORAGE_KEY, id);
  } catch {
    // Remembered for this session only.
  }
}

/** The chosen environment while it exists, else the default (the running local sandbox). */
export function resolveEnvironment(
  environments: EnvironmentView[],
  chosenId: string | undefined,
): EnvironmentView | undefined {
  return environments.find((environment) => environment.id === chosenId) ?? defaultEnvironment(environments);
}
