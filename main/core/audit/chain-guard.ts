import type { SecretStore } from '../platform/secret-store.js';
import { silentLogger, type Logger } from '../platform/logger.js';
import type { Store } from '../store/store.js';
import {
  AUDIT_CHAIN_SECRET,
  AuditKey,
  openChainSecret,
  readAuditKey,
  sealChainSecret,
  type ChainHead,
  type ChainSecret,
} from './chain-key.js';
import {
  verifyAuditChain,
  verifyAuditChainStreaming,
  type AuditChainReport,
  type StreamingVerifyOptions,
  type VerifyOptions,
} from './verify-chain.js';

export interface ChainGuardOptions {
  /** The host's SecretStore: where this program's key and recorded head live. */
  secrets: SecretStore;
  /** Other programs' stores whose keys this one may read, to check their entries (never written). */
  checkKeys?: readonly SecretStore[];
  logger?: Logger;
  /** How long after an append the head is written, covering every append in between. Default 1 s. */
  headDelayMs?: number;
}

/**
 * Keeps the audit chain keyed and its head recorded outside the database, for one open store.
 *
 * Opening loads this program's key from its SecretStore (creating and saving it first, before any entry uses
 * it), hands it to the store's synchronous append path, and checks that the database still reaches the recorded
 * head. After appends the head (newest committed seq and link) is written back, coalesced: at most one write per
 * `headDelayMs`, off the append path, and once more on close; so the recorded head is a lower bound. If the
 * database does not reach the recorded head (cut short, rolled back, rewritten), the head is frozen: never moved
 * again, so `verify` keeps reporting it.
 */
export class AuditChainGuard {
  readonly #store: Store;
  readonly #secrets: SecretStore;
  readonly #log: Logger;
  readonly #delayMs: number;
  readonly #keys: readonly AuditKey[];
  #secret: ChainSecret;
  #frozen = false;
  #dirty = false;
  /** The verified prefix moved since the secret was last written. */
  #verifiedDirty = false;
  #timer: NodeJS.Timeout | undefined;
  #writing: Promise<void> = Promise.resolve();
  #closed = false;

  private constructor(store: Store, secret: ChainSecret, others: readonly AuditKey[], options: ChainGuardOptions) {
    this.#store = store;
    this.#secrets = options.secrets;
    this.#log = options.logger ?? silentLogger;
    this.#delayMs = options.headDelayMs ?? 1_000;
    this.#secret = secret;
    this.#keys = [secret.key, ...others.filter((key) => key.id !== secret.key.id)];
  }

  static async open(store: Store, options: ChainGuardOptions): Promise<AuditChainGuard> {
    const saved = await options.secrets.get(AUDIT_CHAIN_SECRET);
    let secret: ChainSecret;
    if (saved === null) {
      // A new key: saved before any entry uses it, with the newest entry so far as its head.
      const head = store.audit.newest();
      secret = { key: AuditKey.generate(), since: (head?.seq ?? 0) + 1, head };
      await options.secrets.set(AUDIT_CHAIN_SECRET, sealChainSecret(secret));
    } else {
      secret = openChainSecret(saved);
    }
    const others: AuditKey[] = [];
    for (const source of options.checkKeys ?? []) {
      try {
        const key = await readAuditKey(source);
        if (key) others.push(key);
      } catch (error) {
        (options.logger ?? silentLogger).warn("another program's audit key is unreadable", {
          error: error instanceof Error ? error.message.slice(0, 200) : 'unknown',
        });
      }
    }
    const guard = new AuditChainGuard(store, secret, others, options);
    guard.#frozen = !guard.#reachesHead();
    if (guard.#frozen) guard.#log.warn('the audit log does not reach its recorded head; the head is kept as it was');
    store.audit.useKey(secret.key, () => guard.#appended());
    return guard;
  }

  /** The recorded head (a lower bound on the chain), as last written or read. */
  get head(): ChainHead | null {
    return this.#secret.head;
  }

  /**
   * The chain checked with this program's key (and any other it could read) against the recorded head. Whole by
   * default; `incremental`: only what was appended after the prefix a verification found whole before (its last
   * entry's link kept in the keyed secret, next to the head), after checking that entry is unchanged. Either way a
   * whole chain moves that prefix to its end (written off this call, like the head).
   */
  verify(options: { incremental?: boolean } = {}): AuditChainReport {
    return this.#verified(verifyAuditChain(this.#store, this.#verifyOptions(options.incremental === true)));
  }

  /**
   * The whole chain checked a page at a time, with progress and a stop (`verifyAuditChainStreaming`): for a long
   * log, where `verify` would hold the core for the whole walk. A whole chain moves the verified prefix, as `verify`.
   */
  async verifyStreaming(
    options: Pick<StreamingVerifyOptions, 'signal' | 'onProgress'> = {},
  ): Promise<AuditChainReport> {
    const report = await verifyAuditChainStreaming(this.#store, { ...this.#verifyOptions(false), ...options });
    return this.#verified(report);
  }

  #verifyOptions(incremental: boolean): VerifyOptions {
    return {
      keys: this.#keys,
      head: this.#secret.head,
      keyedSince: this.#secret.since,
      verified: incremental ? (this.#secret.verified ?? null) : null,
    };
  }

  /** A whole chain's report moves the verified prefix to its end (written off the call). */
  #verified(report: AuditChainReport): AuditChainReport {
    if (report.ok && report.count > 0 && report.count !== this.#secret.verified?.seq && !this.#frozen) {
      const link = this.#store.audit.linkAt(report.count);
      if (link !== null) {
        this.#secret = { ...this.#secret, verified: { seq: report.count, link } };
        this.#verifiedDirty = true;
        void this.#enqueueWrite();
      }
    }
    return report;
  }

  /** The end of the prefix last found whole (null before the first verification). */
  get verified(): ChainHead | null {
    return this.#secret.verified ?? null;
  }

  /** Writes the head now if appends moved it (tests, and close). */
  async flush(): Promise<void> {
    this.#clearTimer();
    await this.#enqueueWrite();
  }

  /** Writes the last head and stops; call before the store closes. */
  async close(): Promise<void> {
    if (this.#closed) return;
    await this.flush();
    this.#closed = true;
  }

  /** Runs inside the append's transaction: only takes note. */
  #appended(): void {
    this.#dirty = true;
    if (this.#timer || this.#frozen || this.#closed) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#enqueueWrite();
    }, this.#delayMs);
    this.#timer.unref();
  }

  #clearTimer(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #enqueueWrite(): Promise<void> {
    this.#writing = this.#writing.then(() => this.#writeHead());
    return this.#writing;
  }

  /** The head if appends moved it, and the verified prefix if a verification moved it (one write for both). */
  async #writeHead(): Promise<void> {
    await this.#writeMovedHead();
    if (this.#verifiedDirty && !this.#closed && !this.#frozen) await this.#writeSecret(this.#secret);
  }

  async #writeMovedHead(): Promise<void> {
    if (!this.#dirty || this.#frozen || this.#closed || !this.#store.isOpen) return;
    if (this.#store.audit.inTransaction) {
      // What it reads now may still roll back: try again once the transaction is over.
      this.#appended();
      return;
    }
    this.#dirty = false;
    const newest = this.#store.audit.newest();
    if (!newest || newest.seq === this.#secret.head?.seq) return;
    if (!this.#reachesHead()) {
      this.#frozen = true;
      this.#log.warn('the audit log no longer reaches its recorded head; the head is kept as it was');
      return;
    }
    const next: ChainSecret = { ...this.#secret, head: newest };
    const verifiedDirty = this.#verifiedDirty;
    this.#verifiedDirty = false;
    try {
      await this.#secrets.set(AUDIT_CHAIN_SECRET, sealChainSecret(next));
      // A verification during the write keeps its prefix (written next time).
      this.#secret = { ...this.#secret, head: newest };
    } catch (error) {
      this.#verifiedDirty ||= verifiedDirty;
      // The recorded head only lags (a lower bound); the next append tries again.
      this.#dirty = true;
      this.#log.warn('could not record the audit chain head', {
        error: error instanceof Error ? error.message.slice(0, 200) : 'unknown',
      });
    }
  }

  /** Writes the secret as it is now (the verified prefix moved, the head did not). */
  async #writeSecret(secret: ChainSecret): Promise<void> {
    this.#verifiedDirty = false;
    try {
      await this.#secrets.set(AUDIT_CHAIN_SECRET, sealChainSecret(secret));
    } catch (error) {
      this.#verifiedDirty = true;
      this.#log.warn('could not record the verified audit prefix', {
        error: error instanceof Error ? error.message.slice(0, 200) : 'unknown',
      });
    }
  }

  /** The database has an entry at the recorded head's seq, with the recorded link. */
  #reachesHead(): boolean {
    const head = this.#secret.head;
    return head === null || this.#store.audit.linkAt(head.seq) === head.link;
  }
}
