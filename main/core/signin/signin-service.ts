import { AuthError } from '../auth/auth-error.js';
import type { DeviceLogin, DeviceLoginResult } from '../auth/auth-session.js';
import type { EnvironmentRegistry } from '../environments/registry.js';
import { silentLogger, type Logger } from '../platform/logger.js';
import { MemorySecretStore } from '../platform/secret-store.js';
import type { EnvironmentProfileInput } from '../store/environments-repo.js';
import type { Store } from '../store/store.js';

/** What a device sign-in is doing, as the UI shows it. */
export type DeviceSignInState = 'waiting' | 'slow-down' | 'signed-in' | 'denied' | 'expired' | 'cancelled' | 'failed';

export interface SignInChange {
  environmentId: string;
  state: DeviceSignInState | 'signed-out';
  /** A sentence for the admin (never a token or user code). */
  message: string;
  /** Seconds between polls now (after slow-down, longer). */
  intervalSeconds?: number;
}

export interface DeviceSignInStart {
  userCode: string;
  verificationUri: string;
  verificationUriComplete: string | null;
  /** ISO time. */
  expiresAt: string;
  intervalSeconds: number;
}

export interface SignInStatus {
  environmentId: string;
  grant: 'device' | 'client_credentials';
  signedIn: boolean;
  /** ISO time the access token expires; refreshed silently before then. */
  expiresAt: string | null;
  /** Display only. */
  subject: string | null;
  /** A device sign-in in progress, if any. */
  device: { state: 'waiting' | 'slow-down'; expiresAt: string; intervalSeconds: number } | null;
}

export type SignInFailure = { ok: false; code: AuthError['code'] | 'failed'; message: string };
export type SignInAttempt = { ok: true } | SignInFailure;
/** A sign-in checked before its profile is saved: accepted, `keep()` stores it once the profile is. */
export type CheckedSignIn = { ok: true; keep(): Promise<void> } | SignInFailure;

function failureOf(error: unknown): SignInFailure {
  return error instanceof AuthError
    ? { ok: false, code: error.code, message: error.message }
    : { ok: false, code: 'failed', message: 'Sign-in failed inside the app.' };
}

export interface SignInDeps {
  registry: EnvironmentRegistry;
  store: Store;
  logger?: Logger;
  onChange?(change: SignInChange): void;
  /** A sign-in succeeded: resume what waits for it (the outbox, status polling). */
  onSignedIn?(environmentId: string): void;
}

const ENDED_MESSAGES: Record<DeviceLoginResult['outcome'], string> = {
  'signed-in': 'Signed in.',
  denied: 'Sign-in was denied in the browser.',
  expired: 'The code expired before sign-in was completed. Start again for a new code.',
  cancelled: 'Sign-in was cancelled.',
  failed: 'Sign-in failed.',
};

interface Pending {
  login: DeviceLogin;
  state: 'waiting' | 'slow-down';
  intervalSeconds: number;
}

/**
 * Sign-in per environment for every transport: device sign-in (start, progress, cancel, result) and client
 * credentials, with sign-out. Tokens and secrets stay in the AuthSession and its SecretStore; what leaves here
 * is status, codes for the person to type, and plain messages. Each sign-in and sign-out is an audit entry.
 */
export class SignInService {
  readonly #deps: SignInDeps;
  readonly #log: Logger;
  readonly #pending = new Map<string, Pending>();

  constructor(deps: SignInDeps) {
    this.#deps = deps;
    this.#log = deps.logger ?? silentLogger;
  }

  async status(environmentId: string): Promise<SignInStatus> {
    const session = this.#deps.registry.session(environmentId);
    const status = await session.restore();
    const pending = this.#pending.get(environmentId);
    return {
      environmentId,
      grant: status.grant,
      signedIn: status.signedIn,
      expiresAt: status.expiresAt !== undefined ? new Date(status.expiresAt).toISOString() : null,
      subject: status.subject ?? null,
      device: pending
        ? {
            state: pending.state,
            expiresAt: new Date(pending.login.expiresAt).toISOString(),
            intervalSeconds: pending.intervalSeconds,
          }
        : null,
    };
  }

  /**
   * Starts a device sign-in (cancelling one already running for this environment) and returns what the person
   * needs: the code and where to enter it. Progress and the result arrive through `onChange`; `result` is
   * there for callers that wait in place (the CLI).
   */
  async startDevice(environmentId: string): Promise<DeviceSignInStart & { result: Promise<DeviceLoginResult> }> {
    const session = this.#deps.registry.session(environmentId);
    this.#pending.get(environmentId)?.login.cancel();
    // Filled in once the login has started: polls can only report after that.
    const current: { pending?: Pending } = {};
    const login = await session.startDeviceLogin({
      onPoll: (reply) => {
        const pending = current.pending;
        if (!pending || this.#pending.get(environmentId) !== pending || reply !== 'slow-down') return;
        pending.state = 'slow-down';
        pending.intervalSeconds += 5;
        this.#emit({
          environmentId,
          state: 'slow-down',
          message: `The identity server asked to be polled less often: every ${pending.intervalSeconds} s now.`,
          intervalSeconds: pending.intervalSeconds,
        });
      },
    });
    const pending: Pending = { login, state: 'waiting', intervalSeconds: login.interval };
    current.pending = pending;
    this.#pending.set(environmentId, pending);
    this.#emit({
      environmentId,
      state: 'waiting',
      message: 'Waiting for sign-in to be completed in the browser.',
      intervalSeconds: login.interval,
    });
    const result = login.result.then((outcome) => {
      if (this.#pending.get(environmentId) === pending) this.#pending.delete(environmentId);
      this.#ended(environmentId, 'device', outcome);
      return outcome;
    });
    return {
      userCode: login.userCode,
      verificationUri: login.verificationUri,
      verificationUriComplete: login.verificationUriComplete ?? null,
      expiresAt: new Date(login.expiresAt).toISOString(),
      intervalSeconds: login.interval,
      result,
    };
  }

  /** Cancels a device sign-in in progress; false when none was. */
  cancelDevice(environmentId: string): boolean {
    const pending = this.#pending.get(environmentId);
    if (!pending) return false;
    pending.login.cancel();
    return true;
  }

  /**
   * Signs a service account in. A secret given here is saved (encrypted by the SecretStore) once accepted.
   * `actor` is `system` when the app signs in on its own (the local sandbox at start).
   */
  async clientCredentials(
    environmentId: string,
    clientSecret?: string,
    options: { actor?: 'user' | 'system' } = {},
  ): Promise<SignInAttempt> {
    const actor = options.actor ?? 'user';
    try {
      await this.#deps.registry.session(environmentId).signInWithClientCredentials(clientSecret);
    } catch (error) {
      const failure = failureOf(error);
      this.#audit(environmentId, 'signin.failed', 'client_credentials', failure.code, actor);
      return failure;
    }
    this.#ended(environmentId, 'client_credentials', { outcome: 'signed-in' }, actor);
    return { ok: true };
  }

  /**
   * A client-credentials sign-in for a profile before it is saved (`env add`): the token request goes through a
   * session of its own that keeps the secret and tokens in memory, so a refusal or an unusable answer stores
   * nothing. Accepted, `keep()` (once the profile is saved) stores that sign-in as `clientCredentials` would have.
   * Audited as `clientCredentials` is.
   */
  async checkClientCredentials(profile: EnvironmentProfileInput, clientSecret: string): Promise<CheckedSignIn> {
    const memory = new MemorySecretStore();
    try {
      await this.#deps.registry.candidateSession(profile, memory).signInWithClientCredentials(clientSecret);
    } catch (error) {
      const failure = failureOf(error);
      this.#audit(profile.id, 'signin.failed', 'client_credentials', failure.code);
      return failure;
    }
    return {
      ok: true,
      keep: async () => {
        await this.#deps.registry.keepSignIn(profile.id, memory);
        this.#ended(profile.id, 'client_credentials', { outcome: 'signed-in' });
      },
    };
  }

  async signOut(environmentId: string): Promise<void> {
    this.cancelDevice(environmentId);
    const session = this.#deps.registry.session(environmentId);
    await session.signOut();
    this.#audit(environmentId, 'signin.signed-out', session.status().grant, 'signed-out');
    this.#emit({ environmentId, state: 'signed-out', message: 'Signed out.' });
  }

  close(): void {
    for (const pending of this.#pending.values()) pending.login.cancel();
    this.#pending.clear();
  }

  #ended(
    environmentId: string,
    grant: 'device' | 'client_credentials',
    result: DeviceLoginResult,
    actor: 'user' | 'system' = 'user',
  ): void {
    const message = result.outcome === 'failed' ? `Sign-in failed: ${result.message}` : ENDED_MESSAGES[result.outcome];
    const action = result.outcome === 'signed-in' ? 'signin.signed-in' : 'signin.ended';
    this.#audit(environmentId, action, grant, result.outcome, actor);
    this.#emit({ environmentId, state: result.outcome, message });
    if (result.outcome === 'signed-in') this.#deps.onSignedIn?.(environmentId);
  }

  #audit(
    environmentId: string,
    action: string,
    grant: string,
    outcome: string,
    actor: 'user' | 'system' = 'user',
  ): void {
    try {
      this.#deps.store.audit.append({
        actor,
        action,
        environmentId,
        details: { operation: 'sign-in', grant, outcome },
      });
    } catch (error) {
      // A closed store at shutdown must not turn a sign-in result into a crash.
      this.#log.warn('could not audit sign-in', {
        environmentId,
        error: error instanceof Error ? error.name : 'unknown',
      });
    }
  }

  #emit(change: SignInChange): void {
    try {
      this.#deps.onChange?.(change);
    } catch (error) {
      this.#log.warn('sign-in listener failed', { error: error instanceof Error ? error.message : 'unknown' });
    }
  }
}
