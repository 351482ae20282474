import * as oidc from 'openid-client';
import { insecureUrlProblem } from '../../../shared/loopback.js';
import { USER_CODE_MAX } from '../../../shared/signin-views.js';
import { silentLogger, type Logger } from '../platform/logger.js';
import { AuthError } from './auth-error.js';
import { pollDeviceGrant, type PollReply } from './device-polling.js';
import { DEVICE_CODE_GRANT, IdentityServer } from './identity-server.js';
import { classifyOAuthError, toAuthError, unusableTokenAnswer } from './oauth-errors.js';
import type { SecretStore } from '../platform/secret-store.js';
import {
  authSecretKeys,
  bindingMatches,
  storedClientSecretSchema,
  storedTokensSchema,
  tokensFromResponse,
  type CredentialBinding,
  type StoredClientSecret,
  type StoredTokens,
} from './token-record.js';

export interface AuthConfig {
  environmentId: string;
  issuer: string;
  /** The Order Service's base URL: its origin is the only one this session's tokens are given for. */
  apiBaseUrl: string;
  clientId: string;
  grant: 'device' | 'client_credentials';
  scopes: string[];
}

export interface AuthDeps {
  secrets: SecretStore;
  /** ms since epoch; injectable so tests can move past token expiry. */
  now?: () => number;
  logger?: Logger;
}

export type DeviceLoginResult =
  | { outcome: 'signed-in' }
  | { outcome: 'denied' }
  | { outcome: 'expired' }
  | { outcome: 'cancelled' }
  | { outcome: 'failed'; message: string };

export interface DeviceLogin {
  userCode: string;
  verificationUri: string;
  verificationUriComplete?: string;
  /** ms since epoch. */
  expiresAt: number;
  /** Seconds between polls, as the server asked (5 when it did not say, at least MIN_POLL_INTERVAL_SECONDS). */
  interval: number;
  result: Promise<DeviceLoginResult>;
  cancel(): void;
}

export interface AuthStatus {
  signedIn: boolean;
  grant: 'device' | 'client_credentials';
  expiresAt?: number;
  subject?: string;
}

export interface DiscoveryReport {
  reachable: boolean;
  deviceAuthorization: boolean;
  clientCredentials: boolean;
  message: string;
}

/** Refresh this long before expiry (or at half-life for short-lived tokens), so a request never leaves with a token about to lapse. */
const REFRESH_MARGIN_MS = 60_000;
/** RFC 8628 §3.2: poll every 5 s when the server does not say. */
const DEFAULT_POLL_INTERVAL_SECONDS = 5;
/**
 * Never poll faster than this, whatever the server says: openid-client lets any positive interval through, and
 * "interval": 0.001 made the sign-in ask for its token a thousand times a second until the code expired.
 */
export const MIN_POLL_INTERVAL_SECONDS = 1;
/**
 * A device code is waited on at most this long, and polled at least this often, whatever the server says: an
 * `expires_in` of 10^9 kept a sign-in polling (and the Sign-in screen waiting) until someone cancelled it, and an
 * `interval` past the code's life never polled at all. RFC 8628's example lifetime is 30 minutes.
 */
export const MAX_DEVICE_CODE_LIFETIME_SECONDS = 3_600;
export const MAX_POLL_INTERVAL_SECONDS = 60;

type TokenResponse = Awaited<ReturnType<typeof oidc.refreshTokenGrant>>;

/** Parses a stored JSON record; undefined when it is not JSON or not of the schema. */
function parseRecord<T>(
  raw: string,
  schema: { safeParse(value: unknown): { success: true; data: T } | { success: false } },
) {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return undefined;
  }
  const result = schema.safeParse(parsed);
  return result.success ? result.data : undefined;
}

/**
 * One environment's sign-in: device authorization grant (people) or client credentials (a service account).
 * Tokens live in the SecretStore under keys namespaced by environment id, so a new session on the same store
 * resumes signed in. Tokens and the client secret are stored bound to the issuer, the API origin and the client
 * id (token-record.ts): material bound to anything else is deleted unread, and a token is handed out only for
 * the API origin it was bound to. Token values never reach the logger.
 */
export class AuthSession {
  readonly #config: AuthConfig;
  readonly #secrets: SecretStore;
  readonly #now: () => number;
  readonly #log: Logger;
  readonly #keys: { tokens: string; clientSecret: string };
  readonly #binding: CredentialBinding;

  #tokens: StoredTokens | null = null;
  #loading: Promise<void> | undefined;
  #server: Promise<IdentityServer> | undefined;
  #refreshing: Promise<boolean | 'unreachable'> | undefined;
  #deviceLogin: DeviceLogin | undefined;
  /** Bumped by sign-in and sign-out: work started under an older generation must not write tokens. */
  #generation = 0;

  constructor(config: AuthConfig, deps: AuthDeps) {
    this.#config = { ...config, scopes: [...config.scopes] };
    this.#secrets = deps.secrets;
    this.#now = deps.now ?? Date.now;
    this.#log = deps.logger ?? silentLogger;
    this.#keys = authSecretKeys(config.environmentId);
    this.#binding = { issuer: config.issuer, apiOrigin: new URL(config.apiBaseUrl).origin, clientId: config.clientId };
  }

  /** Reflects what is in memory; call `restore()` (or any async method) first after constructing. */
  status(): AuthStatus {
    const t = this.#tokens;
    if (!t) return { signedIn: false, grant: this.#config.grant };
    return {
      signedIn: true,
      grant: this.#config.grant,
      expiresAt: t.expiresAt,
      ...(t.subject ? { subject: t.subject } : {}),
    };
  }

  /** Loads any saved sign-in from the SecretStore and reports the status. */
  async restore(): Promise<AuthStatus> {
    await this.#load();
    return this.status();
  }

  /** `onPoll` hears each "not yet" answer (pending, slow-down), so a UI can show the wait; it never sees tokens. */
  async startDeviceLogin(options: { onPoll?: (reply: 'pending' | 'slow-down') => void } = {}): Promise<DeviceLogin> {
    this.#requireGrant('device');
    await this.#load();
    const server = await this.#discover();
    if (!server.supportsDeviceAuthorization) {
      throw new AuthError('not-supported', 'This identity server does not offer device sign-in.');
    }
    const config = server.publicClient(this.#config.clientId);
    let response: oidc.DeviceAuthorizationResponse;
    try {
      response = await oidc.initiateDeviceAuthorization(config, this.#scopeParam(true));
    } catch (err) {
      throw toAuthError(err);
    }

    // The admin is sent to this page to sign in: never to a plain-http page on another computer, nor a javascript: link.
    for (const uri of [response.verification_uri, response.verification_uri_complete]) {
      const problem = uri === undefined ? undefined : insecureUrlProblem(uri, 'sign-in page');
      if (problem) throw new AuthError('insecure-verification-uri', `The identity server's ${problem.slice(4)}`);
    }
    // Refused before any polling starts: an answer the contract cannot carry failed the call while the sign-in went on
    // polling unseen, its code never shown (docs/security.md, finding 71). RFC 8628's codes are 8 or 9 characters.
    if (response.user_code.length === 0 || response.user_code.length > USER_CODE_MAX) {
      throw new AuthError(
        'unusable-answer',
        `The identity server gave a user code of ${response.user_code.length} characters (at most ${USER_CODE_MAX} can be shown to type): check the identity server.`,
      );
    }
    this.#deviceLogin?.cancel();
    const generation = ++this.#generation;
    const controller = new AbortController();
    const interval = Math.min(
      MAX_POLL_INTERVAL_SECONDS,
      Math.max(MIN_POLL_INTERVAL_SECONDS, response.interval ?? DEFAULT_POLL_INTERVAL_SECONDS),
    );
    const lifetimeS = Math.min(MAX_DEVICE_CODE_LIFETIME_SECONDS, response.expires_in);
    const expiresAt = this.#now() + lifetimeS * 1000;
    this.#log.info('device sign-in started', { environmentId: this.#config.environmentId, expiresInS: lifetimeS });

    const result = pollDeviceGrant<TokenResponse>({
      poll: async () => {
        const reply = await this.#pollDeviceCode(config, response.device_code);
        if (reply.kind === 'pending' || reply.kind === 'slow-down') options.onPoll?.(reply.kind);
        return reply;
      },
      intervalSeconds: interval,
      expiresAt,
      now: this.#now,
      signal: controller.signal,
    })
      .then(async (polled): Promise<DeviceLoginResult> => {
        if (polled.outcome !== 'signed-in') return polled;
        if (controller.signal.aborted || generation !== this.#generation) return { outcome: 'cancelled' };
        await this.#saveTokens(tokensFromResponse(polled.tokens, this.#recordContext(null)));
        return { outcome: 'signed-in' };
      })
      .catch((err: unknown): DeviceLoginResult => ({ outcome: 'failed', message: classifyOAuthError(err).message }))
      .then((outcome) => {
        this.#log.info('device sign-in ended', { environmentId: this.#config.environmentId, outcome: outcome.outcome });
        if (this.#deviceLogin === login) this.#deviceLogin = undefined;
        return outcome;
      });

    const login: DeviceLogin = {
      userCode: response.user_code,
      verificationUri: response.verification_uri,
      ...(response.verification_uri_complete ? { verificationUriComplete: response.verification_uri_complete } : {}),
      expiresAt,
      interval,
      result,
      cancel: () => controller.abort(),
    };
    this.#deviceLogin = login;
    return login;
  }

  /** The secret, when given, is saved to the SecretStore once the server accepts it; otherwise the saved one is used. */
  async signInWithClientCredentials(clientSecret?: string): Promise<void> {
    this.#requireGrant('client_credentials');
    await this.#load();
    const secret = clientSecret || (await this.#readClientSecret());
    if (!secret) throw new AuthError('no-secret', 'Enter the client secret for this environment.');
    const generation = ++this.#generation;
    let response: TokenResponse;
    try {
      const server = await this.#discover();
      response = await oidc.clientCredentialsGrant(
        server.confidentialClient(this.#config.clientId, secret),
        this.#scopeParam(false),
      );
    } catch (err) {
      this.#log.warn('client credentials sign-in failed', { environmentId: this.#config.environmentId });
      throw unusableTokenAnswer(err) ?? toAuthError(err);
    }
    if (generation !== this.#generation)
      throw new AuthError('rejected', 'Sign-in was interrupted by another sign-in or sign-out.');
    const tokens = tokensFromResponse(response, this.#recordContext(null));
    if (clientSecret) await this.storeClientSecret(clientSecret);
    await this.#saveTokens(tokens);
    this.#log.info('signed in with client credentials', { environmentId: this.#config.environmentId });
  }

  /**
   * Keeps a client secret for this environment's issuer, API origin and client id, unchecked (a sign-in with it
   * stores it only once the server accepted it).
   */
  async storeClientSecret(secret: string): Promise<void> {
    const record: StoredClientSecret = { version: 1, ...this.#binding, secret };
    await this.#secrets.set(this.#keys.clientSecret, JSON.stringify(record));
  }

  /**
   * A usable access token, refreshed ahead of expiry; null when signed out or the refresh failed. `audience` is
   * the origin the token is about to be sent to: for any origin but the API's this session was made for, null.
   */
  async getAccessToken(audience?: string): Promise<string | null> {
    if (audience !== undefined && audience !== this.#binding.apiOrigin) {
      this.#log.warn('token withheld: the request is not for the API this sign-in belongs to', {
        environmentId: this.#config.environmentId,
      });
      return null;
    }
    await this.#load();
    const current = this.#tokens;
    if (!current) return null;
    const margin = Math.min(REFRESH_MARGIN_MS, (current.expiresAt - current.obtainedAt) / 2);
    if (this.#now() < current.expiresAt - margin) return current.accessToken;
    if ((await this.refresh()) === true) return this.#tokens?.accessToken ?? null;
    // The server could not be reached: a token that has not quite expired is still worth sending.
    const kept = this.#tokens;
    return kept && this.#now() < kept.expiresAt ? kept.accessToken : null;
  }

  /**
   * Gets a new access token now (after a 401, or ahead of expiry): with the refresh token, or a new client
   * credentials token. A refusal (e.g. revoked refresh token) signs out; a network failure keeps the sign-in.
   * Concurrent calls share one request, so a rotating refresh token is never used twice. `'unreachable'`: the
   * identity server could not be reached (or failed), and the sign-in stands: a matter of trying again later, not
   * of signing in.
   *
   * `rejected`: the token a 401 came back for. When the session already holds another one (a request that left
   * before the last refresh is answered 401 after it), that newer token is the answer and nothing is asked of
   * the identity server: four requests refused mid-batch cost one refresh, however their answers are spread.
   */
  async refresh(rejected?: string): Promise<boolean | 'unreachable'> {
    if (rejected !== undefined && !this.#refreshing) {
      await this.#load();
      const current = this.#tokens;
      if (!current) return false;
      if (current.accessToken !== rejected) return true;
    }
    this.#refreshing ??= this.#refreshOnce().finally(() => {
      this.#refreshing = undefined;
    });
    return this.#refreshing;
  }

  /** Forgets the tokens here first, then revokes the refresh token at the server when it offers revocation. */
  async signOut(): Promise<void> {
    await this.#load();
    this.#generation += 1;
    this.#deviceLogin?.cancel();
    const previous = this.#tokens;
    await this.#saveTokens(null);
    this.#log.info('signed out', { environmentId: this.#config.environmentId });
    if (!previous?.refreshToken) return;
    try {
      const server = await this.#discover();
      if (!server.supportsRevocation) return;
      await oidc.tokenRevocation(server.publicClient(this.#config.clientId), previous.refreshToken, {
        token_type_hint: 'refresh_token',
      });
    } catch (err) {
      this.#log.warn('could not revoke at sign-out', {
        environmentId: this.#config.environmentId,
        reason: classifyOAuthError(err).message,
      });
    }
  }

  /**
   * Deletes this environment's tokens and client secret here, without telling any server (the environment now
   * points elsewhere: nothing of its sign-in may be sent anywhere, not even a revocation). Ends a device sign-in
   * in progress and any refresh's chance to write.
   */
  async forgetCredentials(): Promise<void> {
    this.#generation += 1;
    this.#deviceLogin?.cancel();
    this.#tokens = null;
    this.#loading = Promise.resolve();
    await this.#secrets.delete(this.#keys.tokens);
    await this.#secrets.delete(this.#keys.clientSecret);
    this.#log.info('sign-in forgotten', { environmentId: this.#config.environmentId });
  }

  /** For the connection check: can we reach the issuer, and does it offer the grants we use? */
  async checkDiscovery(): Promise<DiscoveryReport> {
    let server: IdentityServer;
    try {
      server = await IdentityServer.discover(this.#config.issuer, this.#config.clientId);
    } catch (err) {
      const message = err instanceof AuthError ? err.message : classifyOAuthError(err).message;
      return { reachable: false, deviceAuthorization: false, clientCredentials: false, message };
    }
    this.#server = Promise.resolve(server);
    const deviceAuthorization = server.supportsDeviceAuthorization;
    const clientCredentials = server.supportsClientCredentials;
    const offers =
      [deviceAuthorization && 'device sign-in', clientCredentials && 'client credentials']
        .filter(Boolean)
        .join(' and ') || 'neither device sign-in nor client credentials';
    const usable = this.#config.grant === 'device' ? deviceAuthorization : clientCredentials;
    const wanted = this.#config.grant === 'device' ? 'device sign-in' : 'client credentials';
    return {
      reachable: true,
      deviceAuthorization,
      clientCredentials,
      message: usable
        ? `Identity server reachable; it offers ${offers}.`
        : `Identity server reachable, but it does not offer ${wanted}, which this environment uses (it offers ${offers}).`,
    };
  }

  async #refreshOnce(): Promise<boolean | 'unreachable'> {
    await this.#load();
    const current = this.#tokens;
    if (!current) return false;
    const generation = this.#generation;
    const fields = { environmentId: this.#config.environmentId, grant: this.#config.grant };
    try {
      const server = await this.#discover();
      let response: TokenResponse;
      if (this.#config.grant === 'device') {
        if (!current.refreshToken) {
          this.#log.warn('no refresh token: sign in again', fields);
          await this.#signOutLocally(generation);
          return false;
        }
        response = await oidc.refreshTokenGrant(server.publicClient(this.#config.clientId), current.refreshToken);
      } else {
        const secret = await this.#readClientSecret();
        if (!secret) {
          this.#log.warn('no client secret stored: sign in again', fields);
          await this.#signOutLocally(generation);
          return false;
        }
        response = await oidc.clientCredentialsGrant(
          server.confidentialClient(this.#config.clientId, secret),
          this.#scopeParam(false),
        );
      }
      if (generation !== this.#generation) return false;
      await this.#saveTokens(tokensFromResponse(response, this.#recordContext(current)));
      this.#log.info('access token refreshed', fields);
      return true;
    } catch (err) {
      const { definitive, oauthError } = classifyOAuthError(err);
      if (definitive) {
        this.#log.warn('refresh refused: signed out', { ...fields, oauthError: oauthError ?? null });
        await this.#signOutLocally(generation);
        return false;
      }
      this.#log.warn('refresh failed: identity server unreachable', fields);
      return generation === this.#generation && this.#tokens ? 'unreachable' : false;
    }
  }

  async #pollDeviceCode(config: oidc.Configuration, deviceCode: string): Promise<PollReply<TokenResponse>> {
    try {
      const tokens = await oidc.genericGrantRequest(config, DEVICE_CODE_GRANT, { device_code: deviceCode });
      return { kind: 'tokens', tokens };
    } catch (err) {
      const c = classifyOAuthError(err);
      switch (c.oauthError) {
        case 'authorization_pending':
          return { kind: 'pending' };
        case 'slow_down':
          return { kind: 'slow-down' };
        case 'access_denied':
          return { kind: 'denied' };
        case 'expired_token':
          return { kind: 'expired' };
        default:
          return { kind: 'failed', message: c.message, transient: !c.definitive };
      }
    }
  }

  async #signOutLocally(generation: number): Promise<void> {
    if (generation === this.#generation) await this.#saveTokens(null);
  }

  #requireGrant(grant: AuthConfig['grant']): void {
    if (this.#config.grant !== grant) {
      throw new AuthError('wrong-grant', `This environment signs in with ${this.#config.grant}, not ${grant}.`);
    }
  }

  /** Device sign-in also asks for offline_access, which OIDC servers need before they issue a refresh token. */
  #scopeParam(forDevice: boolean): Record<string, string> {
    const scopes = new Set(this.#config.scopes);
    if (forDevice) scopes.add('offline_access');
    return scopes.size ? { scope: [...scopes].join(' ') } : {};
  }

  #recordContext(previous: StoredTokens | null) {
    return { ...this.#binding, grant: this.#config.grant, now: this.#now(), previous };
  }

  /** The stored client secret when it was stored for this issuer, API and client; anything else is deleted. */
  async #readClientSecret(): Promise<string | null> {
    const raw = await this.#secrets.get(this.#keys.clientSecret);
    if (raw === null) return null;
    const stored = parseRecord(raw, storedClientSecretSchema);
    if (stored && bindingMatches(stored, this.#binding)) return stored.secret;
    this.#log.warn('saved client secret deleted: unreadable or for other settings', {
      environmentId: this.#config.environmentId,
    });
    await this.#secrets.delete(this.#keys.clientSecret);
    return null;
  }

  #discover(): Promise<IdentityServer> {
    const pending = (this.#server ??= IdentityServer.discover(this.#config.issuer, this.#config.clientId));
    // A failed discovery is not cached: the next call tries again.
    pending.catch(() => {
      if (this.#server === pending) this.#server = undefined;
    });
    return pending.catch((err: unknown) => {
      throw toAuthError(err);
    });
  }

  #load(): Promise<void> {
    this.#loading ??= this.#readSavedTokens().catch((err: unknown) => {
      this.#loading = undefined; // the store may work next time
      throw err;
    });
    return this.#loading;
  }

  async #readSavedTokens(): Promise<void> {
    const raw = await this.#secrets.get(this.#keys.tokens);
    if (raw === null) return;
    const stored = parseRecord(raw, storedTokensSchema);
    if (stored && bindingMatches(stored, this.#binding) && stored.grant === this.#config.grant) {
      this.#tokens = stored;
      return;
    }
    this.#log.warn('saved sign-in ignored: unreadable or for other settings', {
      environmentId: this.#config.environmentId,
    });
    await this.#secrets.delete(this.#keys.tokens);
  }

  async #saveTokens(tokens: StoredTokens | null): Promise<void> {
    this.#tokens = tokens;
    if (tokens) await this.#secrets.set(this.#keys.tokens, JSON.stringify(tokens));
    else await this.#secrets.delete(this.#keys.tokens);
  }
}
