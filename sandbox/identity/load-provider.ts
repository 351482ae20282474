import type * as OidcProviderModule from 'oidc-provider';

export type OidcProvider = typeof OidcProviderModule;

let loading: Promise<OidcProvider> | undefined;

/**
 * oidc-provider, imported once and lazily. On Node 24 (an LTS it supports) it prints nothing on import; under
 * Node 20 it printed "Unsupported runtime", which this used to hold back.
 */
export function loadOidcProvider(): Promise<OidcProvider> {
  loading ??= import('oidc-provider');
  return loading;
}
