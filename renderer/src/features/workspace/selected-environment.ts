import type { EnvironmentView } from '../../../../shared/environment.js';
import { defaultEnvironment } from '../environments/environment-labels.js';

/** The chosen environment while it exists, else the default (the running local sandbox). */
export function resolveEnvironment(
  environments: EnvironmentView[],
  chosenId: string | undefined,
): EnvironmentView | undefined {
  return environments.find((environment) => environment.id === chosenId) ?? defaultEnvironment(environments);
}
