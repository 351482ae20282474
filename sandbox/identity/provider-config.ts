import type { JWK } from 'jose';
import type { Configuration, KoaContextWithOIDC } from 'oidc-provider';
import type { OidcProvider } from './load-provider.js';
import { ORDER_SERVICE_SCOPES } from '../../shared/environment.js';
import type { MemoryStore } from './memory-adapter.js';
import { codeConfirmPage, codeEntryPage, errorPage, successPage, type Notice } from './pages.js';
import { DEVICE_CODE_GRANT } from './token-endpoint-tweaks.js';

/** IdentityServer4's paths, as CloudRx's identity server publishes them. */
export const ROUTES = {
  authorization: '/connect/authorize',
  token: '/connect/token',
  device_authorization: '/connect/deviceauthorization',
  code_verification: '/device',
  jwks: '/.well-known/openid-configuration/jwks',
  revocation: '/connect/revocation',
  userinfo: '/connect/userinfo',
  end_session: '/connect/endsession',
  introspection: '/connect/introspect',
} as const;

export const INTERACTION_PATH = '/interaction';
export const DEVICE_CLIENT_ID = 'rx-batch-desktop';
export const SERVICE_CLIENT_ID = 'rx-batch-service';
export const CLIENT_NAME = 'Rx Batch';
export const API_SCOPES = ORDER_SERVICE_SCOPES.join(' ');

export interface SandboxAccount {
  accountId: string;
  username: string;
  password: string;
}

export interface ProviderSetup {
  apiAudience: string;
  accessTokenTtlSeconds: number;
  deviceCodeTtlSeconds: number;
  serviceClientSecret: string;
  account: SandboxAccount;
  privateJwks: { keys: JWK[] };
  cookieKeys: string[];
  store: MemoryStore;
  errors: OidcProvider['errors'];
}

const REFRESH_TOKEN_TTL_SECONDS = 14 * 24 * 3600;

function xsrfOf(ctx: KoaContextWithOIDC): string {
  const state = ctx.oidc.session?.state as { secret?: unknown } | undefined;
  return typeof state?.secret === 'string' ? state.secret : '';
}

function clientNameOf(ctx: KoaContextWithOIDC): string {
  return ctx.oidc.client?.clientName ?? CLIENT_NAME;
}

/** Why the code page is shown again, in words for the person at the browser. */
function codeNotice(err: Error | undefined, description: string | undefined): Notice | undefined {
  switch (err?.name) {
    case undefined:
      return undefined;
    case 'NoCodeError':
    case 'NotFoundError':
      return { kind: 'error', text: 'That code was not found. Check it against Rx Batch and try again.' };
    case 'ExpiredError':
      return { kind: 'error', text: 'That code has expired. Start signing in again from Rx Batch.' };
    case 'AlreadyUsedError':
      return { kind: 'error', text: 'That code has already been used. Start again from Rx Batch if you need to.' };
    case 'AbortedError':
      return { kind: 'info', text: 'Sign-in was cancelled. Rx Batch has been told; you can close this page.' };
    default:
      return { kind: 'error', text: `Something went wrong: ${description ?? err?.message ?? 'unknown error'}` };
  }
}

/**
 * oidc-provider configured as a small IdentityServer4 look-alike: a public device client (device code + refresh
 * token), a confidential service client (client credentials), JWT access tokens for one API audience. Every
 * default helper that would print a "you SHOULD change this" notice is replaced.
 */
export function buildProviderConfiguration(s: ProviderSetup): Configuration {
  const resourceServer = {
    scope: API_SCOPES,
    audience: s.apiAudience,
    accessTokenTTL: s.accessTokenTtlSeconds,
    accessTokenFormat: 'jwt' as const,
    jwt: { sign: { alg: 'RS256' as const } },
  };

  return {
    adapter: (model: string) => s.store.adapterFor(model),
    clients: [
      {
        client_id: DEVICE_CLIENT_ID,
        client_name: CLIENT_NAME,
        application_type: 'native',
        token_endpoint_auth_method: 'none',
        grant_types: [DEVICE_CODE_GRANT, 'refresh_token'],
        response_types: [],
        redirect_uris: [],
      },
      {
        client_id: SERVICE_CLIENT_ID,
        client_secret: s.serviceClientSecret,
        client_name: `${CLIENT_NAME} service account`,
        // client_secret_basic is accepted too: oidc-provider treats the two secret methods as interchangeable.
        token_endpoint_auth_method: 'client_secret_post',
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
      },
    ],
    jwks: s.privateJwks,
    cookies: { keys: s.cookieKeys },
    scopes: ['openid', 'offline_access'],
    claims: { openid: ['sub'], profile: ['name', 'preferred_username'] },
    findAccount(_ctx, sub) {
      if (sub !== s.account.accountId) return undefined;
      return {
        accountId: sub,
        claims: () => ({ sub, name: s.account.username, preferred_username: s.account.username }),
      };
    },
    interactions: { url: (_ctx, interaction) => `${INTERACTION_PATH}/${interaction.uid}` },
    routes: ROUTES,
    ttl: {
      AccessToken: s.accessTokenTtlSeconds,
      ClientCredentials: s.accessTokenTtlSeconds,
      DeviceCode: s.deviceCodeTtlSeconds,
      IdToken: 3600,
      RefreshToken: REFRESH_TOKEN_TTL_SECONDS,
      Interaction: 3600,
      Session: 24 * 3600,
      Grant: REFRESH_TOKEN_TTL_SECONDS,
    },
    // The device client gets a refresh token whether or not it asked for offline_access (the device endpoint
    // strips offline_access without prompt=consent). Public-client refresh tokens rotate on every use.
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    expiresWithSession: () => false,
    clientBasedCORS: () => false,
    renderError(ctx, out) {
      ctx.type = 'html';
      ctx.body = errorPage({ title: 'Something went wrong', message: out.error_description ?? out.error });
    },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      revocation: {
        enabled: true,
        allowedPolicy: (_ctx, client, token) => token.clientId === client.clientId,
      },
      resourceIndicators: {
        enabled: true,
        // Requests shaped like the public docs carry no `resource`: they get the API audience.
        defaultResource: () => s.apiAudience,
        useGrantedResource: () => true,
        getResourceServerInfo(_ctx, indicator) {
          if (indicator !== s.apiAudience) throw new s.errors.InvalidTarget();
          return resourceServer;
        },
      },
      deviceFlow: {
        enabled: true,
        charset: 'base-20',
        mask: '****-****',
        userCodeInputSource(ctx, _form, out, err) {
          ctx.type = 'html';
          ctx.body = codeEntryPage({
            action: ctx.oidc.urlFor('code_verification'),
            xsrf: xsrfOf(ctx),
            notice: codeNotice(err, out?.error_description),
          });
        },
        userCodeConfirmSource(ctx, _form, _client, _deviceInfo, userCode) {
          ctx.type = 'html';
          ctx.body = codeConfirmPage({
            action: ctx.oidc.urlFor('code_verification'),
            xsrf: xsrfOf(ctx),
            userCode,
            clientName: clientNameOf(ctx),
          });
        },
        successSource(ctx) {
          ctx.type = 'html';
          ctx.body = successPage({ clientName: clientNameOf(ctx) });
        },
      },
    },
  };
}
