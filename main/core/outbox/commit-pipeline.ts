import type { Logger } from '../platform/logger.js';
import { requestsConnecting } from '../service/http-exchange.js';
import { GroupCommit } from '../store/group-commit.js';
import type { Store } from '../store/store.js';
import { reasonOf } from './step.js';
import type { OutboxTuning } from './tuning.js';
import type { Work } from './work.js';

/** Idle this long, the store's WAL is checkpointed. */
const IDLE_CHECKPOINT_MS = 1_000;
/** The longest an answer waits for its commit while the pool still has work to send. */
const COMMIT_DELAY_MS = 20;
/** Turns of the loop a commit due soon waits at most for requests still connecting (see scheduleCommit). */
const MAX_CONNECT_WAITS = 4;

/** What the pipeline reads of the sending loop, and how it wakes it. */
export interface CommitLoop {
  /** The work picked ahead, in order; creates among it carry the commit that claimed them. */
  pool(): readonly Work[];
  /** The pool's size when full. */
  poolTarget(): number;
  /** Answers waiting for their commit. */
  answeredCount(): number;
  /** Running, with nothing in flight, picked ahead or answered. */
  idle(): boolean;
  /** The loop's turn (records the answers waiting, refills the pool, commits): now, or on the next turn. */
  pump(): void;
  schedulePump(): void;
  /** A background fsync made more commits durable: creates may go, waiters may settle. */
  synced(): void;
  /** A background fsync failed: the claims it was to cover must not go (see dropUnsynced). */
  syncFailed(): void;
}

/**
 * When the sending loop commits, and when its commits reach the disk: the group commit's scheduling (answers wait
 * for a turn that records them all with the next claims), one background fsync at a time (GroupCommit) covering
 * every commit before it, and the WAL checkpoint once the loop is idle. Apart from the loop (EnvironmentRunner)
 * because it is its own trade-off (durability before sending, without the loop waiting for the disk, against
 * keeping the service busy); the loop decides what a turn does, this decides when it runs and what is on disk.
 */
export class CommitPipeline {
  readonly #group: GroupCommit;
  readonly #store: Store;
  readonly #environmentId: string;
  /** The runner's own tuning object (its pace changes in place). */
  readonly #tuning: OutboxTuning;
  readonly #logger: Logger;
  readonly #loop: CommitLoop;
  /** A background fsync is under way (see syncInBackground). */
  #syncing = false;
  #commitTimer: NodeJS.Timeout | undefined;
  /** A commit is set for after the next turn's I/O (see scheduleCommit). */
  #commitSoon = false;
  #idleCheckpoint: NodeJS.Timeout | undefined;

  constructor(deps: { store: Store; environmentId: string; tuning: OutboxTuning; logger: Logger; loop: CommitLoop }) {
    this.#group = new GroupCommit(deps.store);
    this.#store = deps.store;
    this.#environmentId = deps.environmentId;
    this.#tuning = deps.tuning;
    this.#logger = deps.logger;
    this.#loop = deps.loop;
  }

  /** One turn's transaction, committed without waiting for the disk: its value and the commit's number. */
  commit<T>(fn: () => T): { value: T; commit: number } {
    return this.#group.commit(fn);
  }

  /** Whether commit number `commit` is on disk. */
  isDurable(commit: number): boolean {
    return this.#group.isDurable(commit);
  }

  /** Whether every commit made so far is on disk. */
  allDurable(): boolean {
    return this.#group.allDurable();
  }

  /** A turn is running: the commit it makes covers whatever a timer was waiting for. */
  turnStarted(): void {
    clearTimeout(this.#commitTimer);
    this.#commitTimer = undefined;
  }

  /** The loop stops: no commit or checkpoint is left set for later. */
  cancelTimers(): void {
    clearTimeout(this.#idleCheckpoint);
    this.#idleCheckpoint = undefined;
    clearTimeout(this.#commitTimer);
    this.#commitTimer = undefined;
  }

  /** Syncs what is left, at once (the loop's stop). */
  close(): void {
    this.#group.close();
  }

  /**
   * When the answers waiting get their commit: at once if the pool ran dry (nothing can go until it is refilled);
   * soon if it is half empty (its refill must be claimed and synced before it is needed) or a round of answers
   * (one per request slot) waits; otherwise a few milliseconds on. "Soon" is after the next turn's I/O, so the
   * requests just launched are on the wire, not waiting behind the commit. One round rather than the four of before:
   * a commit holds the loop about 60 µs an answer, and meanwhile the requests at the service are answered and none
   * replaces them, so a commit that outlasts them leaves the service idle (at +0 ms, four rounds' commits left the
   * sandbox idle for most of their length). The paired runs that chose one round: bench/README.md, "Commit rounds".
   */
  scheduleCommit(): void {
    const loop = this.#loop;
    const poolLength = loop.pool().length;
    if (poolLength === 0) {
      loop.schedulePump();
      return;
    }
    if (poolLength <= loop.poolTarget() / 2 || loop.answeredCount() >= this.#tuning.concurrency) {
      if (this.#commitSoon) return;
      this.#commitSoon = true;
      // The first immediate runs this turn, the second after the next poll for I/O (connects, writes). Requests
      // launched in that poll are still connecting: a few turns more let their bytes out before the commit holds
      // the loop (otherwise the service can run dry meanwhile; a few per cent at +0 ms, near this machine's noise).
      let waits = 0;
      const commit = () => {
        if (requestsConnecting() > 0 && waits < MAX_CONNECT_WAITS) {
          waits += 1;
          setImmediate(commit);
          return;
        }
        this.#commitSoon = false;
        loop.pump();
      };
      setImmediate(() => setImmediate(commit));
      return;
    }
    this.#commitTimer ??= setTimeout(() => {
      this.#commitTimer = undefined;
      loop.pump();
    }, COMMIT_DELAY_MS);
  }

  /** After a turn's commit: syncs ahead in the background when the pool's creates will soon need it. */
  syncAhead(): void {
    if (this.#syncWanted()) this.syncInBackground();
  }

  /**
   * One fsync of the WAL at a time on the thread pool (GroupCommit), covering every commit made before it: then
   * the creates whose claims it made durable can go, and idle waiters learn that everything is on disk. If the
   * fsync fails, claims it was to cover are never trusted: those creates go back to `queued` (with an ordinary
   * synchronous commit) without being sent.
   */
  syncInBackground(): void {
    if (this.#syncing || this.#group.allDurable()) return;
    this.#syncing = true;
    this.#group.sync().then(
      () => {
        this.#syncing = false;
        if (this.#syncWanted()) this.syncInBackground();
        // Either may want the next sync too: a create at the head of the pool, or a waiter.
        this.#loop.synced();
      },
      (error: unknown) => {
        this.#syncing = false;
        this.#logger.error('outbox could not make its commits durable', {
          environmentId: this.#environmentId,
          reason: reasonOf(error),
        });
        this.#loop.syncFailed();
      },
    );
  }

  /**
   * Whether to sync ahead, before a create waits for it: claimed creates are not yet durable and fewer than
   * half a pool of durable ones is left to send. (Each fsync costs the event loop a wake-up of the thread pool, so
   * claims are synced in batches rather than after every commit.)
   */
  #syncWanted(): boolean {
    let ready = 0;
    let unsynced = 0;
    for (const work of this.#loop.pool()) {
      if (work.kind !== 'create') continue;
      if (this.#group.isDurable(work.commit)) ready += 1;
      else unsynced += 1;
    }
    return unsynced > 0 && ready < Math.max(this.#tuning.concurrency, this.#loop.poolTarget() / 2);
  }

  /**
   * Claims a failed fsync was to cover: back to `queued`, never sent (if even that fails, recovery finds them).
   * Returns the pool without them.
   */
  dropUnsynced(pool: Work[]): Work[] {
    const unsynced = pool.filter((work) => work.kind === 'create' && !this.#group.isDurable(work.commit));
    if (unsynced.length === 0) return pool;
    const kept = pool.filter((work) => !unsynced.includes(work));
    try {
      this.#store.outboxQueue.unclaim(unsynced.map((work) => work.id));
    } catch (error) {
      this.#logger.error('outbox could not put back claims it could not sync', {
        environmentId: this.#environmentId,
        reason: reasonOf(error),
      });
    }
    return kept;
  }

  /**
   * The WAL is copied into the database file (GroupCommit.checkpoint) once nothing has been under way for a
   * while, rather than by the commits of a busy loop (which checkpoint only at a larger WAL size).
   */
  checkpointWhenIdle(): void {
    if (this.#idleCheckpoint) return;
    this.#idleCheckpoint = setTimeout(() => {
      this.#idleCheckpoint = undefined;
      if (!this.#loop.idle()) return;
      try {
        this.#group.checkpoint();
      } catch (error) {
        this.#logger.warn('outbox could not checkpoint the store', { reason: reasonOf(error) });
      }
    }, IDLE_CHECKPOINT_MS);
    this.#idleCheckpoint.unref();
  }
}
