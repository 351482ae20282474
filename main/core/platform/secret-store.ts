/**
 * Where sign-in secrets live (refresh tokens, access tokens, client secrets). The Electron shell provides one
 * backed by `safeStorage`; tests and browser mode use the memory one. Values are opaque strings to the store.
 */
export interface SecretStore {
  get(key: string): Promise<string | null>;
  set(key: string, value: string): Promise<void>;
  delete(key: string): Promise<void>;
}

/** Keeps secrets for the life of the process only: nothing touches the disk. */
export class MemorySecretStore implements SecretStore {
  readonly #values = new Map<string, string>();

  get(key: string): Promise<string | null> {
    return Promise.resolve(this.#values.get(key) ?? null);
  }

  set(key: string, value: string): Promise<void> {
    this.#values.set(key, value);
    return Promise.resolve();
  }

  delete(key: string): Promise<void> {
    this.#values.delete(key);
    return Promise.resolve();
  }
}
