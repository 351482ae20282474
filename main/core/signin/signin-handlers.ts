import type { CallHandlers } from '../../../shared/contract.js';
import { ContractError } from '../../../shared/errors.js';
import type { AppServices } from '../app-services.js';
import { AuthError } from '../auth/auth-error.js';

type SigninCallName =
  'signin.status' | 'signin.startDevice' | 'signin.cancelDevice' | 'signin.clientCredentials' | 'signin.signOut';

/** The sign-in calls of the contract, over the core's SignInService. */
export function buildSigninHandlers(services: AppServices): Pick<CallHandlers, SigninCallName> {
  const { registry, signin } = services;
  const known = (environmentId: string) => registry.get(environmentId);
  return {
    'signin.status': ({ environmentId }) => {
      known(environmentId);
      return signin.status(environmentId);
    },
    'signin.startDevice': async ({ environmentId }) => {
      const environment = known(environmentId);
      if (environment.grant !== 'device') {
        throw new ContractError({
          code: 'invalid-input',
          message: `${environment.name} signs in with client credentials`,
        });
      }
      if (!environment.clientId) {
        throw new ContractError({ code: 'invalid-input', message: `${environment.name} has no client id yet` });
      }
      let started;
      try {
        started = await signin.startDevice(environmentId);
      } catch (error) {
        // The real cause in the app's words (unreachable, refused, not offered), not "failed inside the app".
        if (error instanceof AuthError) throw new ContractError({ code: 'failed', message: error.message });
        throw error;
      }
      return {
        userCode: started.userCode,
        verificationUri: started.verificationUri,
        verificationUriComplete: started.verificationUriComplete,
        expiresAt: started.expiresAt,
        interval: started.intervalSeconds,
      };
    },
    'signin.cancelDevice': ({ environmentId }) => {
      known(environmentId);
      return Promise.resolve({ cancelled: signin.cancelDevice(environmentId) });
    },
    'signin.clientCredentials': async ({ environmentId, clientSecret }) => {
      const environment = known(environmentId);
      if (environment.grant !== 'client_credentials') {
        throw new ContractError({ code: 'invalid-input', message: `${environment.name} signs in with device sign-in` });
      }
      return signin.clientCredentials(environmentId, clientSecret);
    },
    'signin.signOut': async ({ environmentId }) => {
      known(environmentId);
      await signin.signOut(environmentId);
      return signin.status(environmentId);
    },
  };
}
