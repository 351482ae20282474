import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * WAL checkpoints on a thread of their own, for a connection that commits often and must not stall (the intake,
 * whose ACKs wait behind anything the event loop does).
 *
 * A checkpoint copies the WAL into the database file and fsyncs both, synchronously, in whichever connection runs
 * it. Left to SQLite it runs inside the commit that took the WAL past its size: on the event loop, 5–10 ms for a
 * 16 MB WAL on a quiet disk and 20–100 ms when other processes write (measured in the intake's ACK latency at 100
 * messages/s: bench/README.md, "ACK latency stalls"). Here a second connection on a worker thread runs
 * `wal_checkpoint(PASSIVE)` a moment after commits (`nudge`): it never takes the write lock, so commits go on
 * while it copies, and the WAL restarts from its start at the first commit after a checkpoint that caught up. The
 * committing connection keeps its own autocheckpoint as a backstop (the worker could not start, or falls behind).
 *
 * The worker is plain JavaScript evaluated from this string, so it needs no file of its own in the built app;
 * better-sqlite3 is loaded by the path this module resolves it to.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('synchronous = FULL');
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
parentPort.on('message', (message) => {
  if (message === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  try {
    // Again while commits made during the copy left frames behind (a few tries): the WAL restarts from its start
    // only after a checkpoint that caught up, so without this a steady stream of commits keeps it growing.
    let row = checkpoint.get();
    for (let tries = 1; tries < 4 && row.checkpointed < row.log; tries += 1) row = checkpoint.get();
    parentPort.postMessage({ frames: row.log, copied: row.checkpointed });
  } catch (error) {
    parentPort.postMessage({ error: error instanceof Error ? error.message : String(error) });
  }
});
`;

export interface WalCheckpointerOptions {
  /** Checkpoints start at most this often; commits between them share one. */
  intervalMs?: number;
  /** A checkpoint or the worker failed (the committing connection's own checkpoints then carry on alone). */
  onError?: (message: string) => void;
}

export interface CheckpointStats {
  checkpoints: number;
  /** Checkpoints that copied every frame (the next commit then restarts the WAL from its start). */
  caughtUp: number;
  /** Frames in the WAL at the last checkpoint, and how many of them it had copied. */
  lastFrames: number;
  lastCopied: number;
}

const DEFAULT_INTERVAL_MS = 250;

export class WalCheckpointer {
  readonly stats: CheckpointStats = { checkpoints: 0, caughtUp: 0, lastFrames: 0, lastCopied: 0 };
  readonly #intervalMs: number;
  readonly #onError: (message: string) => void;
  #worker: Worker | null;
  #exited: Promise<void>;
  #timer: NodeJS.Timeout | null = null;
  /** A checkpoint is running on the worker; `#again`: commits came meanwhile. */
  #running = false;
  #again = false;
  #lastStart = 0;

  /** `file`: the database file (its `-wal` beside it). */
  constructor(file: string, options: WalCheckpointerOptions = {}) {
    this.#intervalMs = options.intervalMs ?? DEFAULT_INTERVAL_MS;
    this.#onError = options.onError ?? (() => undefined);
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file, driver } });
    // Never what keeps the process alive; `close` ends it.
    worker.unref();
    worker.on('message', (result: { frames?: number; copied?: number; error?: string }) => this.#done(result));
    worker.on('error', (error: Error) => {
      this.#onError(error.message);
      this.#worker = null;
    });
    this.#exited = new Promise((resolve) => worker.once('exit', () => resolve()));
    this.#worker = worker;
  }

  /** Commits were made: a checkpoint follows within the interval (one at a time). */
  nudge(): void {
    if (this.#worker === null) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    if (this.#timer !== null) return;
    const wait = Math.max(0, this.#lastStart + this.#intervalMs - performance.now());
    this.#timer = setTimeout(() => this.#start(), wait);
    this.#timer.unref();
  }

  /** Stops the worker (a checkpoint running is finished first) and closes its connection. */
  async close(): Promise<void> {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    const worker = this.#worker;
    this.#worker = null;
    if (worker) {
      // Held now, or a process with nothing else left to run would end (exit code 13) before the worker did.
      worker.ref();
      worker.postMessage('close');
    }
    await this.#exited;
  }

  #start(): void {
    this.#timer = null;
    if (this.#worker === null) return;
    this.#running = true;
    this.#lastStart = performance.now();
    this.#worker.postMessage('checkpoint');
  }

  #done(result: { frames?: number; copied?: number; error?: string }): void {
    this.#running = false;
    if (result.error !== undefined) this.#onError(result.error);
    else {
      this.stats.checkpoints += 1;
      this.stats.lastFrames = result.frames ?? 0;
      this.stats.lastCopied = result.copied ?? 0;
      if (this.stats.lastCopied >= this.stats.lastFrames) this.stats.caughtUp += 1;
    }
    if (this.#again) {
      this.#again = false;
      this.nudge();
    }
  }
}
