import {
  environmentProfileSchema,
  environmentSchema,
  type Environment,
  type EnvironmentView,
} from '../../../shared/environment.js';
import type { EnvironmentRemoval } from '../../../shared/environment-removal.js';
import { ContractError } from '../../../shared/errors.js';
import { AuthSession } from '../auth/auth-session.js';
import { authSecretKeys } from '../auth/token-record.js';
import type { SecretStore } from '../platform/secret-store.js';
import type { Logger } from '../platform/logger.js';
import { createOrderServiceClient, type OrderServiceClient } from '../service/client.js';
import type { EnvironmentProfile, EnvironmentProfileInput } from '../store/environments-repo.js';
import type { Store } from '../store/store.js';

/** Connections kept ahead of a stream of requests (OrderServiceClientOptions.warmConnections). */
const WARM_CONNECTIONS = 4;

/** What an environment's sign-in is bound to: change any of it and the environment is signed out. */
export interface EnvironmentIdentity {
  apiOrigin: string;
  issuer: string;
  clientId: string;
  grant: EnvironmentProfile['grant'];
}

export function identityOf(profile: Pick<EnvironmentProfile, 'apiBaseUrl' | 'issuer' | 'clientId' | 'grant'>) {
  return {
    apiOrigin: new URL(profile.apiBaseUrl).origin,
    issuer: profile.issuer,
    clientId: profile.clientId,
    grant: profile.grant,
  } satisfies EnvironmentIdentity;
}

export function sameIdentity(a: EnvironmentIdentity, b: EnvironmentIdentity): boolean {
  return a.apiOrigin === b.apiOrigin && a.issuer === b.issuer && a.clientId === b.clientId && a.grant === b.grant;
}

export interface UpdateOptions {
  /** For the local sandbox: whether the app has it running. Default: as it was. */
  running?: boolean;
  /** Who changed the profile, for the audit entry of an identity change. Default `user`. */
  actor?: 'user' | 'system';
}

export interface RegistryDeps {
  secrets: SecretStore;
  logger: Logger;
  userAgent: string;
}

/**
 * The environments the app knows, persisted in the store, each with its sign-in session and service clients,
 * built once per environment and rebuilt when its profile changes.
 */
export class EnvironmentRegistry {
  readonly #store: Store;
  readonly #running = new Set<string>();
  readonly #sessions = new Map<string, AuthSession>();
  readonly #clients = new Map<string, { secured: OrderServiceClient; anonymous: OrderServiceClient }>();
  readonly #deps: RegistryDeps;
  readonly #listeners = new Set<(profile: EnvironmentProfile) => void>();

  constructor(store: Store, deps: RegistryDeps) {
    this.#store = store;
    this.#deps = deps;
  }

  /**
   * Stores each preset the store does not have yet (all of them on first run; a preset added by a later release
   * on upgrade). Presets already stored keep the admin's edits; a preset the admin removed stays removed.
   */
  seed(presets: readonly Environment[]): void {
    this.#store.inTransaction(() => {
      const removed = new Set(this.#store.environments.removedIds());
      for (const preset of presets)
        if (!removed.has(preset.id) && !this.#store.environments.get(preset.id))
          this.#store.environments.upsert(preset);
    });
  }

  list(): EnvironmentView[] {
    return this.#store.environments.list().map((profile) => ({
      ...environmentProfileSchema.parse(profile),
      running: this.#running.has(profile.id),
    }));
  }

  find(id: string): EnvironmentProfile | undefined {
    return this.#store.environments.get(id);
  }

  get(id: string): EnvironmentProfile {
    const environment = this.find(id);
    if (!environment) throw new ContractError({ code: 'invalid-input', message: `no environment with id "${id}"` });
    return environment;
  }

  /** Environments with a client id: the ones that can sign in and send. */
  configured(): EnvironmentProfile[] {
    return this.#store.environments.list().filter((environment) => environment.clientId !== '');
  }

  /**
   * Stores a profile (new or edited; e.g. the local sandbox once its URLs are known) and drops the session and
   * clients built from the old one. When the edit changes the environment's identity (API origin, issuer, client
   * id or grant), its tokens and client secret are deleted first, nothing is sent to either server, and the
   * change is audited with the old and new addresses: credentials given for one server never reach another.
   */
  async update(environment: EnvironmentProfileInput, options: UpdateOptions = {}): Promise<EnvironmentProfile> {
    environmentSchema.parse(environment); // a profile that cannot be stored must not sign anyone out first
    const previous = this.find(environment.id);
    const before = previous && identityOf(previous);
    const after = identityOf(environment);
    if (before && !sameIdentity(before, after)) {
      // Deleted before the new profile is stored, so no session built from it can meet the old sign-in.
      await this.session(environment.id).forgetCredentials();
    }
    const running = options.running ?? this.#running.has(environment.id);
    const stored = this.#store.inTransaction(() => {
      const saved = this.#store.environments.upsert(environment);
      if (before && !sameIdentity(before, after)) {
        this.#store.audit.append({
          actor: options.actor ?? 'user',
          action: 'environment.identity-changed',
          environmentId: environment.id,
          details: {
            previousApiOrigin: before.apiOrigin,
            apiOrigin: after.apiOrigin,
            previousIssuer: before.issuer,
            issuer: after.issuer,
            previousClientId: before.clientId,
            clientId: after.clientId,
            previousGrant: before.grant,
            grant: after.grant,
          },
        });
      }
      return saved;
    });
    if (running) this.#running.add(environment.id);
    else this.#running.delete(environment.id);
    this.#sessions.delete(environment.id);
    this.#clients.delete(environment.id);
    for (const listener of this.#listeners) listener(stored);
    return stored;
  }

  /**
   * Removes the environment if `check`, run inside the transaction that marks it removed, says it may be (so no
   * order can slip in between): audited with its address and the orders it keeps, then its saved sign-in and
   * client secret are deleted and its session and clients dropped. Returns what `check` said either way.
   */
  async remove(id: string, check: (profile: EnvironmentProfile) => EnvironmentRemoval): Promise<EnvironmentRemoval> {
    const session = this.session(id);
    const removal = this.#store.inTransaction(() => {
      const profile = this.get(id);
      const now = check(profile);
      if (!now.removable) return now;
      this.#store.environments.remove(id);
      this.#store.audit.append({
        actor: 'user',
        action: 'environment.removed',
        environmentId: id,
        details: { apiOrigin: identityOf(profile).apiOrigin, orderCount: now.kept },
      });
      return now;
    });
    if (!removal.removable) return removal;
    this.#running.delete(id);
    this.#sessions.delete(id);
    this.#clients.delete(id);
    await session.forgetCredentials();
    return removal;
  }

  /**
   * Calls `listener` after each stored profile change, so long-lived users adopt what they hold themselves (the
   * outbox's and the poller's pace). URLs, timeout and sign-in need no listener: clients are rebuilt (liveClient).
   * Returns a function that removes the listener.
   */
  onUpdate(listener: (profile: EnvironmentProfile) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  session(id: string): AuthSession {
    let session = this.#sessions.get(id);
    if (!session) {
      const { issuer, apiBaseUrl, clientId, grant, scopes } = this.get(id);
      session = new AuthSession(
        { environmentId: id, issuer, apiBaseUrl, clientId, grant, scopes },
        { secrets: this.#deps.secrets, logger: this.#deps.logger },
      );
      this.#sessions.set(id, session);
    }
    return session;
  }

  /**
   * A session for a profile that is not saved (yet), keeping its secret and tokens in `secrets`: a sign-in can be
   * checked before anything is stored (`env add`), and `keepSignIn` makes it the environment's own once it is.
   */
  candidateSession(profile: EnvironmentProfileInput, secrets: SecretStore): AuthSession {
    const { id, issuer, apiBaseUrl, clientId, grant, scopes } = environmentSchema.parse(profile);
    return new AuthSession(
      { environmentId: id, issuer, apiBaseUrl, clientId, grant, scopes },
      { secrets, logger: this.#deps.logger },
    );
  }

  /**
   * Stores what a candidate session signed in with (its client secret and tokens in `from`) as the saved
   * environment's own. The records stay bound to the issuer, API and client they were made for, so a profile saved
   * with other ones deletes them unread.
   */
  async keepSignIn(id: string, from: SecretStore): Promise<void> {
    this.get(id);
    const keys = authSecretKeys(id);
    for (const key of [keys.clientSecret, keys.tokens]) {
      const value = await from.get(key);
      if (value !== null) await this.#deps.secrets.set(key, value);
    }
    // Built before these were stored: the next one reads them.
    this.#sessions.delete(id);
    this.#clients.delete(id);
  }

  /**
   * A client that always goes through the environment's current profile and session, for long-lived users (the
   * outbox, the poller) that would otherwise keep a client built from a profile edited since.
   */
  liveClient(id: string): OrderServiceClient {
    return new Proxy({} as OrderServiceClient, {
      get: (_target, property: keyof OrderServiceClient) => {
        const client = this.client(id, 'secured');
        const value = Reflect.get(client, property) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(client) : value;
      },
    });
  }

  client(id: string, access: 'secured' | 'anonymous'): OrderServiceClient {
    let clients = this.#clients.get(id);
    if (!clients) {
      const environment = this.get(id);
      const session = this.session(id);
      const options = {
        apiBaseUrl: environment.apiBaseUrl,
        timeoutMs: environment.requestTimeoutMs,
        userAgent: this.#deps.userAgent,
        createWithClinicVersion: environment.createWithClinicVersion,
        logger: this.#deps.logger,
        warmConnections: WARM_CONNECTIONS,
      };
      clients = {
        secured: createOrderServiceClient({ ...options, tokens: session }),
        anonymous: createOrderServiceClient({ ...options, tokens: null }),
      };
      this.#clients.set(id, clients);
    }
    return clients[access];
  }
}
