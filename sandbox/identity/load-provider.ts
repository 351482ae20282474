import type * as OidcProviderModule from 'oidc-provider';

export type OidcProvider = typeof OidcProviderModule;

let loading: Promise<OidcProvider> | undefined;

/**
 * oidc-provider prints "Unsupported runtime" on import under Node 20 (it targets 22+, and works on 20 for what
 * the sandbox uses). Import it once, lazily, with just that line held back; every other warning still shows.
 */
export function loadOidcProvider(): Promise<OidcProvider> {
  loading ??= (async () => {
    const warn = console.warn;
    console.warn = (...args: unknown[]) => {
      if (typeof args[0] === 'string' && args[0].startsWith('oidc-provider WARNING: Unsupported runtime')) return;
      warn(...args);
    };
    try {
      return await import('oidc-provider');
    } finally {
      console.warn = warn;
    }
  })();
  return loading;
}
