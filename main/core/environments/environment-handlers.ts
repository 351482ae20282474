import type { CallHandlers } from '../../../shared/contract.js';
import { ContractError } from '../../../shared/errors.js';
import type { AppServices } from '../app-services.js';
import { checkConnection } from '../connection-check.js';
import { identityChangeQuestion, removalQuestion } from '../confirm-question.js';
import type { DesktopIntegration } from '../desktop-handlers.js';
import { removalOf } from './environment-removal.js';
import { LOCAL_SANDBOX_ID } from './presets.js';
import { identityOf, sameIdentity } from './registry.js';

type EnvironmentCallName =
  | 'environments.list'
  | 'environments.save'
  | 'environments.removal'
  | 'environments.remove'
  | 'environments.choose'
  | 'environments.chosen'
  | 'connection.check';

/**
 * The environment calls of the contract. A save that adds an environment or changes its identity, and a removal,
 * are confirmed by the desktop's native dialog where there is one (docs/security.md, finding 1).
 */
export function buildEnvironmentHandlers(
  services: AppServices,
  desktop?: Pick<DesktopIntegration, 'confirm'>,
): Pick<CallHandlers, EnvironmentCallName> {
  const { registry, store, outbox } = services;
  return {
    'environments.list': () => Promise.resolve(registry.list()),
    'environments.removal': ({ environmentId }) => Promise.resolve(removalOf(store, registry.get(environmentId))),
    'environments.remove': async ({ environmentId }) => {
      const environment = registry.get(environmentId);
      const removal = removalOf(store, environment);
      if (!removal.removable) throw new ContractError({ code: 'failed', message: removal.message });
      // Script in the page must not remove an environment alone: the desktop asks the admin.
      const confirmed = desktop ? await desktop.confirm(removalQuestion(environment.name, removal.message)) : true;
      if (!confirmed) {
        throw new ContractError({ code: 'forbidden', message: `${environment.name} was not removed.` });
      }
      // Checked again as it is removed: an order accepted while the dialog was open keeps it.
      const removed = await registry.remove(environmentId, (profile) => removalOf(store, profile));
      if (!removed.removable) throw new ContractError({ code: 'failed', message: removed.message });
      await services.stopEnvironment(environmentId);
      services.events.emit('environments.changed', registry.list());
      return { removed };
    },
    'environments.choose': ({ environmentId }) => {
      registry.get(environmentId);
      store.environments.choose(environmentId);
      return Promise.resolve({ environmentId });
    },
    'environments.chosen': () => Promise.resolve({ environmentId: store.environments.chosenId() }),
    'connection.check': ({ environmentId }) =>
      checkConnection(environmentId, registry.client(environmentId, 'anonymous'), registry.session(environmentId)),
    'environments.save': async ({ environment, create }) => {
      const existing = registry.find(environment.id);
      if (create && existing) {
        throw new ContractError({
          code: 'invalid-input',
          message: `there is already an environment with the id "${environment.id}"`,
        });
      }
      if (!create && !existing) {
        throw new ContractError({ code: 'invalid-input', message: `no environment with id "${environment.id}"` });
      }
      if (create && environment.kind !== 'remote') {
        throw new ContractError({ code: 'invalid-input', message: 'only remote environments can be added' });
      }
      // The local sandbox's URLs, client and grant are filled in by the app each time it starts the sandbox.
      const profile =
        existing?.kind === 'local-sandbox' || existing?.id === LOCAL_SANDBOX_ID
          ? {
              ...environment,
              kind: existing.kind,
              apiBaseUrl: existing.apiBaseUrl,
              issuer: existing.issuer,
              clientId: existing.clientId,
              grant: existing.grant,
            }
          : { ...environment, kind: existing?.kind ?? environment.kind };
      const repointed = existing !== undefined && !sameIdentity(identityOf(existing), identityOf(profile));
      if (repointed || !existing) {
        // Script in the page must not add or re-point an environment alone: the desktop asks the admin.
        const confirmed = desktop
          ? await desktop.confirm(
              identityChangeQuestion({
                name: existing?.name ?? profile.name,
                ...(existing ? { before: identityOf(existing) } : {}),
                after: identityOf(profile),
              }),
            )
          : true;
        if (!confirmed) {
          throw new ContractError({
            code: 'forbidden',
            message: existing
              ? `${existing.name} was not changed: its new address or client was not confirmed.`
              : `${profile.name} was not added: its address was not confirmed.`,
          });
        }
      }
      await registry.update(profile);
      // Orders queued for the old address must not leave for the new one unless the admin says so (a page's script
      // could re-point and sign in at a server of its own): sending waits for an explicit resume.
      if (repointed) {
        outbox.pause(
          profile.id,
          `${profile.name} now points to ${identityOf(profile).apiOrigin}: check the address, then resume to send queued orders there.`,
        );
      }
      store.audit.append({
        actor: 'user',
        action: create ? 'environment.added' : 'environment.edited',
        environmentId: profile.id,
        details: { grant: profile.grant },
      });
      // A profile that can now sign in starts sending and tracking (sign-in required until someone signs in).
      if (profile.clientId) services.startEnvironment(profile.id);
      const environments = registry.list();
      services.events.emit('environments.changed', environments);
      const saved = environments.find((candidate) => candidate.id === profile.id);
      if (!saved) throw new Error(`environment ${profile.id} was not stored`);
      return saved;
    },
  };
}
