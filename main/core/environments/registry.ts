import type { Environment, EnvironmentView } from '../../../shared/environment.js';
import { ContractError } from '../../../shared/errors.js';
import { AuthSession } from '../auth/auth-session.js';
import type { SecretStore } from '../auth/secret-store.js';
import type { Logger } from '../logger.js';
import { createOrderServiceClient, type OrderServiceClient } from '../service/client.js';

export interface RegistryDeps {
  secrets: SecretStore;
  logger: Logger;
  userAgent: string;
}

/**
 * The environments the app knows, each with its sign-in session and service clients, built once per
 * environment and rebuilt when its profile changes. Persisted profiles arrive with the store (outbox issue).
 */
export class EnvironmentRegistry {
  readonly #environments = new Map<string, Environment>();
  readonly #running = new Set<string>();
  readonly #sessions = new Map<string, AuthSession>();
  readonly #clients = new Map<string, { secured: OrderServiceClient; anonymous: OrderServiceClient }>();
  readonly #deps: RegistryDeps;

  constructor(environments: Environment[], deps: RegistryDeps) {
    this.#deps = deps;
    for (const environment of environments) this.#environments.set(environment.id, environment);
  }

  list(): EnvironmentView[] {
    return [...this.#environments.values()].map((environment) => ({
      ...environment,
      running: this.#running.has(environment.id),
    }));
  }

  get(id: string): Environment {
    const environment = this.#environments.get(id);
    if (!environment) throw new ContractError({ code: 'invalid-input', message: `no environment with id "${id}"` });
    return environment;
  }

  /** Replaces a profile (e.g. the local sandbox once its URLs are known) and drops what was built from the old one. */
  update(environment: Environment, running = this.#running.has(environment.id)): void {
    this.#environments.set(environment.id, environment);
    if (running) this.#running.add(environment.id);
    else this.#running.delete(environment.id);
    this.#sessions.delete(environment.id);
    this.#clients.delete(environment.id);
  }

  session(id: string): AuthSession {
    let session = this.#sessions.get(id);
    if (!session) {
      const { issuer, clientId, grant, scopes } = this.get(id);
      session = new AuthSession(
        { environmentId: id, issuer, clientId, grant, scopes },
        { secrets: this.#deps.secrets, logger: this.#deps.logger },
      );
      this.#sessions.set(id, session);
    }
    return session;
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
