import * as oidc from 'openid-client';
import { AuthError } from './auth-error.js';
import { boundedFetch } from './bounded-fetch.js';
import { checkIssuerUrl } from './issuer-url.js';

/** Per request to the identity server; a dead server must not hang sign-in or the connection check. */
export const REQUEST_TIMEOUT_SECONDS = 15;

export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/** The endpoints this app sends credentials to: a client secret, a device code, a refresh token. */
const CREDENTIAL_ENDPOINTS = ['token_endpoint', 'device_authorization_endpoint', 'revocation_endpoint'] as const;

/**
 * Every endpoint that receives credentials is on the issuer's own origin (scheme, host and port), so a client
 * secret or refresh token goes only where the admin pointed the environment, over what its address says (https;
 * http only for a loopback issuer). Chosen default: CloudRx's identity server (IdentityServer4) serves all of
 * them from its issuer, and one that names another origin (an internal host behind a proxy, "http://is4:5000/…",
 * or a document that is not what it seems) would otherwise get the secret, in the clear when it says http:, as
 * openid-client allows any http endpoint once the loopback issuer's plain http is allowed.
 */
function checkEndpoints(metadata: oidc.ServerMetadata, issuer: URL): void {
  for (const name of CREDENTIAL_ENDPOINTS) {
    const value = metadata[name];
    if (value === undefined) continue;
    let origin: string | undefined;
    try {
      origin = typeof value === 'string' ? new URL(value).origin : undefined;
    } catch {
      origin = undefined;
    }
    if (origin === issuer.origin) continue;
    const shown = typeof value === 'string' ? value.slice(0, 200) : typeof value;
    throw new AuthError(
      'foreign-endpoint',
      `The identity server's discovery document sends ${name.replace(/_/g, ' ')} requests to ${shown}, not to ${issuer.origin}: nothing was sent there. Check the issuer address, or the identity server's public origin setting.`,
    );
  }
}

/** One discovered identity server, and openid-client configurations for talking to it as a given client. */
export class IdentityServer {
  readonly metadata: oidc.ServerMetadata;
  readonly #insecure: boolean;

  private constructor(metadata: oidc.ServerMetadata, insecure: boolean) {
    this.metadata = metadata;
    this.#insecure = insecure;
  }

  /** OIDC discovery. Plain http only for loopback issuers (checkIssuerUrl throws otherwise). */
  static async discover(issuer: string, clientId: string): Promise<IdentityServer> {
    const { url, insecure } = checkIssuerUrl(issuer);
    const config = await oidc.discovery(url, clientId, undefined, oidc.None(), {
      execute: insecure ? [oidc.allowInsecureRequests] : [],
      timeout: REQUEST_TIMEOUT_SECONDS,
      [oidc.customFetch]: boundedFetch,
    });
    const metadata = config.serverMetadata();
    checkEndpoints(metadata, url);
    return new IdentityServer(metadata, insecure);
  }

  get supportsDeviceAuthorization(): boolean {
    return typeof this.metadata.device_authorization_endpoint === 'string';
  }

  /** RFC 8414: an absent grant_types_supported means only authorization_code and implicit. */
  get supportsClientCredentials(): boolean {
    return this.metadata.grant_types_supported?.includes('client_credentials') ?? false;
  }

  get supportsRevocation(): boolean {
    return typeof this.metadata.revocation_endpoint === 'string';
  }

  /** A public client (device grant): no secret. */
  publicClient(clientId: string): oidc.Configuration {
    return this.#configure(new oidc.Configuration(this.metadata, clientId, undefined, oidc.None()));
  }

  /** A confidential client; the secret goes in the form body, as CloudRx's public docs show. */
  confidentialClient(clientId: string, clientSecret: string): oidc.Configuration {
    return this.#configure(
      new oidc.Configuration(this.metadata, clientId, undefined, oidc.ClientSecretPost(clientSecret)),
    );
  }

  #configure(config: oidc.Configuration): oidc.Configuration {
    if (this.#insecure) oidc.allowInsecureRequests(config);
    config.timeout = REQUEST_TIMEOUT_SECONDS;
    // Every answer read with a size limit (bounded-fetch.ts): openid-client's own reading has none.
    config[oidc.customFetch] = boundedFetch;
    return config;
  }
}
