import * as oidc from 'openid-client';
import { checkIssuerUrl } from './issuer-url.js';

/** Per request to the identity server; a dead server must not hang sign-in or the connection check. */
export const REQUEST_TIMEOUT_SECONDS = 15;

export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

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
    });
    return new IdentityServer(config.serverMetadata(), insecure);
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
    return config;
  }
}
