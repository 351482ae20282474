import { DEFAULT_CODE_LISTS, ORDER_SERVICE_SCOPES, type Environment } from '../../../shared/environment.js';

/** The local sandbox's id: its URLs and client are filled in each time the app starts it. */
export const LOCAL_SANDBOX_ID = 'local-sandbox';
/** The same sandbox signed in with a device code (a person at its sign-in page), the other sign-in method. */
export const LOCAL_SANDBOX_DEVICE_ID = 'local-sandbox-device';

const common = {
  scopes: [...ORDER_SERVICE_SCOPES],
  createWithClinicVersion: 'v1',
  requestTimeoutMs: 30_000,
  codeLists: DEFAULT_CODE_LISTS,
} as const;

/**
 * What a fresh install knows. The local sandbox is the default so the app works end to end with no account,
 * signed in with its service account by the app; the same sandbox is there with device sign-in too, so both
 * sign-in methods can be tried out of the box. The CloudRx environments come from the public getting-started page
 * and need the supplier's client id.
 */
export function presetEnvironments(): Environment[] {
  return [
    {
      ...common,
      scopes: [...common.scopes],
      id: LOCAL_SANDBOX_ID,
      name: 'Local sandbox',
      kind: 'local-sandbox',
      apiBaseUrl: 'http://127.0.0.1/',
      issuer: 'http://127.0.0.1/',
      clientId: '',
      grant: 'client_credentials',
    },
    {
      ...common,
      scopes: [...common.scopes],
      id: LOCAL_SANDBOX_DEVICE_ID,
      name: 'Local sandbox (device sign-in)',
      kind: 'local-sandbox',
      apiBaseUrl: 'http://127.0.0.1/',
      issuer: 'http://127.0.0.1/',
      clientId: '',
      grant: 'device',
    },
    {
      ...common,
      scopes: [...common.scopes],
      id: 'cloudrx-sandbox',
      name: 'CloudRx sandbox',
      kind: 'remote',
      apiBaseUrl: 'https://sandbox-orderservice.cloudrx.co.uk/',
      issuer: 'https://sandbox-is4.cloudrx.co.uk',
      clientId: '',
      grant: 'client_credentials',
    },
    {
      ...common,
      scopes: [...common.scopes],
      id: 'cloudrx-production',
      name: 'CloudRx production',
      kind: 'remote',
      apiBaseUrl: 'https://orderservice.cloudrx.co.uk/',
      issuer: 'https://is4.cloudrx.co.uk',
      clientId: '',
      grant: 'client_credentials',
    },
  ];
}
