import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { createAccessTokenVerifier, type VerifiedToken } from './access-token-verifier.js';
import { admitRequest } from '../host-check.js';
import { handleInteraction, isInteractionPath } from './interactions.js';
import { loadOidcProvider } from './load-provider.js';
import { MemoryStore } from './memory-adapter.js';
import {
  buildProviderConfiguration,
  DEVICE_CLIENT_ID,
  ROUTES,
  SERVICE_CLIENT_ID,
  type SandboxAccount,
} from './provider-config.js';
import { errorPage } from './pages.js';
import { loadOrCreateKeys, STORE_FILE } from './identity-state.js';
import { tokenEndpointTweaks } from './token-endpoint-tweaks.js';
import { capConnections } from '../connection-cap.js';

export type { VerifiedToken } from './access-token-verifier.js';

export interface IdentityOptions {
  /** 0 or undefined = any free port; always bound to 127.0.0.1. */
  port?: number;
  /** The Order Service API base URL; access tokens are JWTs with exactly this audience. */
  apiAudience: string;
  /** Default 300. */
  accessTokenTtlSeconds?: number;
  /** Default 600. */
  deviceCodeTtlSeconds?: number;
  /**
   * A folder (0700) to keep the signing keys, the service client secret and the records in, so sign-ins outlive a
   * restart (identity-state.ts); default none: everything is new on every start.
   */
  stateDir?: string;
}

export interface RunningIdentity {
  /** e.g. http://127.0.0.1:PORT (no trailing slash). */
  issuer: string;
  /** Public client: device_code + refresh_token grants. */
  deviceClient: { clientId: string };
  /** Confidential client: client_credentials. The secret is new on every start (kept with `stateDir`). */
  serviceClient: { clientId: string; clientSecret: string };
  /** The sandbox login for the device flow pages. */
  user: { username: string; password: string };
  /** null when invalid, expired, or for another audience. */
  verifyAccessToken(token: string): Promise<VerifiedToken | null>;
  /** Test hook: every refresh token issued so far stops working (later refreshes get invalid_grant). */
  revokeAllRefreshTokens(): Promise<void>;
  close(): Promise<void>;
}

/** Local-only credentials, shown on the sandbox login page on purpose. */
const SANDBOX_ACCOUNT: SandboxAccount = {
  accountId: 'sandbox-admin',
  username: 'sandbox-admin',
  password: 'sandbox-password',
};

/** How often a device may poll; short because the sandbox is local (the RFC default is 5 s). */
const DEVICE_POLL_INTERVAL_SECONDS = 1;

/** Starts a real OAuth 2.0 / OIDC provider (oidc-provider) on 127.0.0.1, standing in for CloudRx's IdentityServer. */
export async function startIdentity(options: IdentityOptions): Promise<RunningIdentity> {
  const accessTokenTtlSeconds = options.accessTokenTtlSeconds ?? 300;
  const deviceCodeTtlSeconds = options.deviceCodeTtlSeconds ?? 600;
  for (const [name, value] of Object.entries({ accessTokenTtlSeconds, deviceCodeTtlSeconds })) {
    if (!Number.isSafeInteger(value) || value <= 0) throw new RangeError(`${name} must be a positive whole number`);
  }

  const [{ Provider, errors }, keys] = await Promise.all([loadOidcProvider(), loadOrCreateKeys(options.stateDir)]);

  // Listen first: the issuer needs the port. Requests that arrive before the provider exists get a 503.
  let handler = (_req: IncomingMessage, res: ServerResponse, _pathname: string): void => {
    res.writeHead(503).end();
  };
  // Only requests addressed to this server (loopback name, its port) reach oidc-provider or the sign-in pages.
  const server = capConnections(
    createServer((req, res) => {
      const target = admitRequest(req, res);
      if (target !== undefined) handler(req, res, target.pathname);
    }),
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${port}`;

  const store = new MemoryStore(options.stateDir === undefined ? undefined : join(options.stateDir, STORE_FILE));
  const serviceClientSecret = keys.serviceClientSecret;
  const provider = new Provider(
    issuer,
    buildProviderConfiguration({
      apiAudience: options.apiAudience,
      accessTokenTtlSeconds,
      deviceCodeTtlSeconds,
      serviceClientSecret,
      account: SANDBOX_ACCOUNT,
      privateJwks: keys.privateJwks,
      cookieKeys: [randomBytes(32).toString('base64url')],
      store,
      errors,
    }),
  );
  provider.use(
    tokenEndpointTweaks({
      tokenPath: ROUTES.token,
      deviceAuthorizationPath: ROUTES.device_authorization,
      pollIntervalSeconds: DEVICE_POLL_INTERVAL_SECONDS,
    }),
  );
  provider.on('server_error', (_ctx: unknown, err: Error) => {
    console.error(`identity sandbox: server error: ${err.message}`);
  });

  const providerCallback = provider.callback();
  handler = (req, res, pathname) => {
    if (!isInteractionPath(pathname)) {
      void providerCallback(req, res);
      return;
    }
    handleInteraction(req, res, { provider, account: SANDBOX_ACCOUNT }).catch((err: unknown) => {
      console.error(`identity sandbox: interaction failed: ${err instanceof Error ? err.message : String(err)}`);
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'text/html; charset=utf-8' });
        res.end(errorPage({ title: 'Something went wrong', message: 'The sign-in step failed. Start again.' }));
      } else {
        res.destroy();
      }
    });
  };

  return {
    issuer,
    deviceClient: { clientId: DEVICE_CLIENT_ID },
    serviceClient: { clientId: SERVICE_CLIENT_ID, clientSecret: serviceClientSecret },
    user: { username: SANDBOX_ACCOUNT.username, password: SANDBOX_ACCOUNT.password },
    verifyAccessToken: createAccessTokenVerifier({
      issuer,
      audience: options.apiAudience,
      publicJwks: keys.publicJwks,
    }),
    revokeAllRefreshTokens() {
      store.deleteModel('RefreshToken');
      return Promise.resolve();
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}
