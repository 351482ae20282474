import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { inProcessRowSink, type StagedRowSink } from '../store/staged-batch-writer.js';

/**
 * An import's rows written by a worker thread (staged-rows-worker.ts), so SQLite's work (the inserts, the WAL
 * writes, the checkpoints) runs on the second core while the importer parses the rest of the file. Chunks are
 * posted as they fill; `write` holds the importer back while MAX_PENDING chunks are unwritten, so memory stays flat
 * whichever side is slower. The worker starts while the first rows are parsed (nothing waits for it). If it cannot
 * start at all (a packaging without the worker file, say), the rows are written on this thread instead, the chunks
 * already posted included; a failure after it started fails the import.
 */

export interface RowWorkerData {
  file: string;
  batchId: number;
}
export type ToRowWorker = { type: 'rows'; chunk: unknown[] } | { type: 'end' };
export type FromRowWorker =
  { type: 'ready' } | { type: 'written' } | { type: 'failed'; message: string } | { type: 'ended' };

/** Chunks (500 rows, 1 MB or so each) that may wait unwritten; enough to cover the worker starting up. */
const MAX_PENDING = 8;

/** The built app has the worker as its own file beside the bundle (electron.vite.config.ts); source runs via tsx. */
const WORKER_FILES = ['staged-rows-worker.js', 'staged-rows-worker.ts'];

/** tsx's ESM API, whose `register()` makes a worker thread load TypeScript (its CJS build cannot, in a worker). */
function tsxApiUrl(): string {
  const manifestPath = createRequire(import.meta.url).resolve('tsx/package.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as {
    exports: Record<string, { import: { default: string } }>;
  };
  return pathToFileURL(join(dirname(manifestPath), manifest.exports['./esm/api']!.import.default)).href;
}

function startWorker(data: RowWorkerData): Worker {
  for (const name of WORKER_FILES) {
    const url = new URL(name, import.meta.url);
    if (!existsSync(fileURLToPath(url))) continue;
    if (name.endsWith('.js')) return new Worker(url, { workerData: data });
    // From source (tests, the CLI, browser mode): tsx compiles the worker's TypeScript as it does the main thread's.
    const boot = `import(${JSON.stringify(tsxApiUrl())}).then((api) => { api.register(); return import(${JSON.stringify(url.href)}); });`;
    return new Worker(boot, { eval: true, workerData: data });
  }
  throw new Error('the staged-rows worker is not installed');
}

/** An OpenRowSink; `start` is for tests (a worker that fails to start). */
export function workerRowSink(
  file: string,
  batchId: number,
  start: (data: RowWorkerData) => Worker = startWorker,
): StagedRowSink & { readonly inWorker: boolean } {
  return new WorkerRowSink(file, batchId, start);
}

class WorkerRowSink implements StagedRowSink {
  readonly #file: string;
  readonly #batchId: number;
  readonly #worker: Worker | undefined;
  readonly #exited: Promise<void>;
  #fallback: StagedRowSink | undefined;
  #ready = false;
  #ended = false;
  #failure: Error | undefined;
  /** Chunks posted and not yet written (the worker answers in order). */
  #unwritten = 0;
  /** Until the worker is ready: every chunk posted, to write here if it never starts. */
  #replay: unknown[][] | undefined = [];
  #waiter: { resolve: () => void; reject: (error: Error) => void } | undefined;

  constructor(file: string, batchId: number, start: (data: RowWorkerData) => Worker) {
    this.#file = file;
    this.#batchId = batchId;
    let worker: Worker | undefined;
    try {
      worker = start({ file, batchId });
    } catch {
      this.#fallback = inProcessRowSink(file, batchId);
    }
    this.#worker = worker;
    this.#exited = worker
      ? new Promise((resolve) => {
          worker.on('message', (message: FromRowWorker) => this.#onMessage(message));
          worker.on('error', (error: unknown) =>
            this.#onBroken(error instanceof Error ? error : new Error(String(error))),
          );
          worker.once('exit', () => {
            if (!this.#ended) this.#onBroken(new Error('the import writer stopped'));
            resolve();
          });
        })
      : Promise.resolve();
  }

  /** Whether the rows go through the worker thread (false once they are written on this thread instead). */
  get inWorker(): boolean {
    return this.#worker !== undefined && this.#fallback === undefined;
  }

  write(chunk: unknown[]): void | Promise<void> {
    if (this.#failure) throw this.#failure;
    if (this.#fallback) return this.#fallback.write(chunk);
    this.#worker!.postMessage({ type: 'rows', chunk } satisfies ToRowWorker);
    this.#unwritten += 1;
    this.#replay?.push(chunk);
    if (this.#unwritten < MAX_PENDING) return undefined;
    return new Promise((resolve, reject) => {
      this.#waiter = { resolve, reject };
    });
  }

  async end(): Promise<void> {
    await this.#stopWorker();
    if (this.#failure) throw this.#failure;
    if (this.#fallback) await this.#fallback.end();
  }

  async abort(): Promise<void> {
    await this.#stopWorker();
    if (this.#fallback) await this.#fallback.abort();
  }

  /** Asks the worker to finish what it was given and exit; waits until it has. */
  async #stopWorker(): Promise<void> {
    if (this.#worker && !this.#ended && !this.#fallback)
      this.#worker.postMessage({ type: 'end' } satisfies ToRowWorker);
    await this.#exited;
  }

  #onMessage(message: FromRowWorker): void {
    switch (message.type) {
      case 'ready':
        this.#ready = true;
        this.#replay = undefined;
        return;
      case 'written':
        this.#unwritten -= 1;
        if (this.#unwritten < MAX_PENDING) this.#wake();
        return;
      case 'failed':
        this.#fail(new Error(`writing the imported orders failed: ${message.message}`));
        return;
      case 'ended':
        this.#ended = true;
    }
  }

  #onBroken(error: Error): void {
    if (this.#failure || this.#fallback) return;
    if (this.#ready) {
      this.#fail(new Error(`writing the imported orders failed: ${error.message}`));
      return;
    }
    // It never started: write here instead, beginning with what was posted to it.
    try {
      const sink = inProcessRowSink(this.#file, this.#batchId);
      this.#fallback = sink;
      for (const chunk of this.#replay ?? []) void sink.write(chunk);
      this.#replay = undefined;
      this.#unwritten = 0;
      this.#wake();
    } catch (fallbackError) {
      this.#fail(fallbackError instanceof Error ? fallbackError : new Error(String(fallbackError)));
    }
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.reject(this.#failure);
  }

  #wake(): void {
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.resolve();
  }
}
