import type Database from 'better-sqlite3';
import { closeSync, fsync, fsyncSync, openSync } from 'node:fs';
import type { Store } from './store.js';

/**
 * Commits whose fsync runs off the event loop, for the submitter (main/core/outbox).
 *
 * With synchronous=FULL every COMMIT ends in an fsync of the WAL that holds the event loop, and the submitter
 * commits often (answers' records, claims). Here a transaction commits with synchronous=NORMAL, for that commit
 * only: its WAL frames are written, visible and atomic as ever, just not yet forced to disk. One fsync of the WAL
 * file on libuv's thread pool (`sync`) then covers every commit written before it started, which is what FULL
 * does at each commit, done for many commits at once and without blocking. Whatever must survive power loss
 * before the next step waits for `isDurable`: a claimed order's request leaves only once its claim is durable,
 * and since the WAL is appended in order, so is everything committed before the claim (the order's in-doubt
 * memory included). A crash, even SIGKILL, loses nothing committed (the frames are in the OS's cache); power
 * loss before the fsync loses only commits nothing has relied on yet, as a crash just before their COMMIT would.
 * The connection's other transactions keep FULL, and their fsyncs cover these frames too.
 *
 * Checkpoints (copying the WAL into the database file: two fsyncs and the copy, on the event loop) happen in
 * these commits only at `checkpointFactor` times the usual WAL size (4 unless told); the submitter calls
 * `checkpoint` when it is idle, the intake has them run on a thread of their own (WalCheckpointer) and keeps these
 * only as a backstop.
 */
export interface GroupCommitOptions {
  /** The WAL size at which these commits checkpoint, in multiples of the connection's own; default 4. */
  checkpointFactor?: number;
}

export class GroupCommit {
  readonly #db: Database.Database;
  readonly #walFile: string;
  readonly #run: Database.Transaction<(fn: () => unknown) => unknown>;
  /** The connection's checkpoint size, restored after each of these commits. */
  readonly #checkpointPages: number;
  /** The checkpoint size during these commits. */
  readonly #groupCheckpointPages: number;
  readonly #checkpoint: Database.Statement;
  #fd: number | null = null;
  /** The number of the latest commit made here, and the latest known to be on disk. */
  #committed = 0;
  #durable = 0;
  #syncing: Promise<void> | null = null;
  /** Commits a failed fsync was to cover: (after, upTo]. */
  #lost = { after: 0, upTo: 0 };
  /** An fsync failed: every commit is an ordinary synchronous one from then on. */
  #synchronous = false;

  constructor(store: Store, options: GroupCommitOptions = {}) {
    this.#db = store.db;
    this.#walFile = `${store.file}-wal`;
    this.#checkpointPages = this.#db.pragma('wal_autocheckpoint', { simple: true }) as number;
    this.#groupCheckpointPages = Math.round((options.checkpointFactor ?? 4) * this.#checkpointPages);
    this.#checkpoint = this.#db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
    this.#run = this.#db.transaction((fn: () => unknown) => fn());
  }

  /** Whether commit number `commit` is on disk (never, for one a failed fsync was to cover). */
  isDurable(commit: number): boolean {
    return commit <= this.#durable && !(commit > this.#lost.after && commit <= this.#lost.upTo);
  }

  /**
   * Runs `fn` in one write transaction committed without waiting for the disk; returns its result and the
   * commit's number (see `isDurable`). Not for use inside another transaction.
   */
  commit<T>(fn: () => T): { value: T; commit: number } {
    if (this.#db.inTransaction) throw new Error('a group commit cannot run inside another transaction');
    if (this.#synchronous || !this.#walOpen()) {
      // No WAL file to sync on its own: an ordinary synchronous commit, durable when it returns.
      const value = this.#run.immediate(fn) as T;
      this.#committed += 1;
      this.#durable = this.#committed;
      return { value, commit: this.#committed };
    }
    // Executed, not prepared once: SQLite applies these two pragmas when a statement is prepared, not when run.
    try {
      this.#db.exec(`PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = ${this.#groupCheckpointPages}`);
      const value = this.#run.immediate(fn) as T;
      this.#committed += 1;
      return { value, commit: this.#committed };
    } finally {
      this.#db.exec(`PRAGMA synchronous = FULL; PRAGMA wal_autocheckpoint = ${this.#checkpointPages}`);
    }
  }

  /** Copies the WAL into the database file now (PASSIVE: never waits for readers); for idle moments. */
  checkpoint(): void {
    this.#checkpoint.get();
  }

  /**
   * Makes every commit so far durable with one fsync on the thread pool; concurrent calls share it, and a call
   * made while one runs waits for the next (which covers its commits).
   *
   * Rejects if the fsync fails. Commits it was to cover then never become durable here (after a failed fsync the
   * kernel may have dropped their pages, so a later success would prove nothing about them): whoever waits for
   * them must give up on them, and every later commit is an ordinary synchronous one.
   */
  sync(): Promise<void> {
    const target = this.#committed;
    if (this.#durable >= target) return Promise.resolve();
    const running = this.#syncing;
    if (running) return running.then(() => this.sync());
    const fd = this.#fd;
    if (fd === null || this.#synchronous) return Promise.reject(new Error('the commits to sync were lost'));
    const syncing = new Promise<void>((resolve, reject) => {
      fsync(fd, (error) => {
        this.#syncing = null;
        if (error) {
          this.#failed();
          reject(error);
          return;
        }
        this.#durable = Math.max(this.#durable, target);
        resolve();
      });
    });
    this.#syncing = syncing;
    return syncing;
  }

  /** Makes every commit so far durable now, blocking (for stopping). Throws if the fsync fails. */
  syncNow(): void {
    if (this.#fd === null || this.#synchronous || this.#durable >= this.#committed) return;
    const target = this.#committed;
    try {
      fsyncSync(this.#fd);
    } catch (error) {
      this.#failed();
      throw error;
    }
    this.#durable = Math.max(this.#durable, target);
  }

  /** Whether every commit made here is durable (or was given up on after a failed fsync). */
  allDurable(): boolean {
    return this.#durable >= this.#committed;
  }

  /** Syncs what is left and closes the WAL file handle (a later commit opens it again). */
  close(): void {
    const fd = this.#fd;
    if (fd === null) return;
    try {
      this.syncNow();
    } finally {
      this.#fd = null;
      // Never close the descriptor under an fsync still running on the thread pool (the number could be reused).
      const close = () => {
        try {
          closeSync(fd);
        } catch {
          // Already closed: nothing to release.
        }
      };
      if (this.#syncing) this.#syncing.then(close, close);
      else close();
    }
  }

  /** Every commit not yet durable is lost to this fsync's failure, also those made while it ran. */
  #failed(): void {
    this.#synchronous = true;
    this.#lost = { after: this.#durable, upTo: this.#committed };
    this.#durable = this.#committed;
  }

  /** Opens the WAL file once (it exists while the store is open in WAL mode); false if it cannot be. */
  #walOpen(): boolean {
    if (this.#fd !== null) return true;
    try {
      // Read-write: Windows flushes only handles opened for writing. Nothing is ever written through it.
      this.#fd = openSync(this.#walFile, 'r+');
      return true;
    } catch {
      return false;
    }
  }
}
