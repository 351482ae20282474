import type Database from 'better-sqlite3';
import type { BatchRecord, BatchesRepo, FinishedImport } from './batches-repo.js';
import { openDatabase } from './open-database.js';
import type { OrderRoute } from './order-state.js';
import { isNotAnOrder } from '../model/imported-order.js';
import type { OrderExtras } from '../model/provenance-table.js';
import { encodeProvenance, encodeProvenanceEntries } from './provenance-codec.js';
import type { NewStagedOrder } from './staged-order-types.js';

/**
 * The write path of an import (see migration 008). Orders go straight into `staged_orders`, once, under a batch row
 * that stays hidden until the import commits:
 * - rows are serialised here as they come and handed to a row sink in chunks; the sink writes them through a
 *   connection of its own with `synchronous=NORMAL` (a commit per chunk, no fsync each), in a worker thread when
 *   staging provides one (`main/core/staging/worker-row-sink.ts`), so the writing overlaps the parsing;
 * - `commit` then clears the batch's hidden mark in the caller's transaction on the store's own connection
 *   (`synchronous=FULL`), with the audit entry. That commit's fsync of the WAL also makes every earlier chunk
 *   durable, since they precede it in the WAL: one fsync'd commit per import;
 * - `close` without a commit (cancelled, refused, failed) deletes the batch and its rows. A process that dies
 *   mid-import leaves a hidden batch, which the next import deletes (`StagedOrdersRepo.writer`).
 * Chunks are short transactions, so the submitter's commits on the store's connection never join them and wait at
 * most one chunk for the write lock.
 */

/** Values per row in a chunk: position, clinic code, clinic order id, order control, body, valid, problems,
 * provenance, source. A chunk is one flat array, cheap to post to a worker. */
export const ROW_WIDTH = 9;
/** A chunk is sent when it has this many rows or characters, whichever comes first. */
const ROWS_PER_CHUNK = 500;
const CHARS_PER_CHUNK = 2_000_000;

/** Where chunks of rows go; `write` may return a promise to hold the importer back while chunks are pending. */
export interface StagedRowSink {
  write(chunk: unknown[]): void | Promise<void>;
  /** Every chunk written; the sink's connection closed. Rejects if any write failed. */
  end(): Promise<void>;
  /** Stops writing (what is written stays, for the caller to delete) and closes; never rejects. */
  abort(): Promise<void>;
}

/** Opens a sink for one import's batch; `file` is the store's database file. */
export type OpenRowSink = (file: string, batchId: number) => StagedRowSink;

/** Characters written between two checkpoints of an import's connection (about 16 MB of WAL). */
export const CHECKPOINT_CHARS = 16_000_000;

/**
 * A connection for writing an import's rows: the store's file, WAL, commits not fsync'd (see the file comment).
 * It checkpoints itself every CHECKPOINT_CHARS and at the end (StagedRowInserter) rather than after every commit
 * once the WAL passes 4 MB (SQLite's default): each checkpoint fsyncs twice, and per chunk that was a third of the
 * writing time; the WAL still stays small, so a commit of the store's own connection meanwhile has little to copy.
 */
export function openImportConnection(file: string): Database.Database {
  const db = openDatabase(file);
  try {
    const mode = db.pragma('journal_mode', { simple: true });
    if (mode !== 'wal') throw new Error(`the store is not in WAL mode ("${String(mode)}")`);
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma('wal_autocheckpoint = 0');
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/** Writes chunks of rows into a hidden batch; each chunk is one transaction. */
export class StagedRowInserter {
  readonly #db: Database.Database;
  readonly #insert: (chunk: readonly unknown[]) => void;
  #sinceCheckpoint = 0;

  constructor(db: Database.Database, batchId: number) {
    this.#db = db;
    const stillImporting = db.prepare<[number], number>('SELECT importing FROM import_batches WHERE id = ?').pluck();
    const insert = db.prepare(
      `INSERT INTO staged_orders (batch_id, position, clinic_code, clinic_order_id, order_control, body, valid,
         problems, provenance, source, state)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'staged')`,
    );
    const transaction = db.transaction((chunk: readonly unknown[]) => {
      // Never into a batch that was committed or discarded meanwhile.
      if (stillImporting.get(batchId) !== 1) throw new Error(`batch ${batchId} is not being imported`);
      for (let i = 0; i < chunk.length; i += ROW_WIDTH) {
        insert.run(
          batchId,
          chunk[i],
          chunk[i + 1],
          chunk[i + 2],
          chunk[i + 3],
          chunk[i + 4],
          chunk[i + 5],
          chunk[i + 6],
          chunk[i + 7],
          chunk[i + 8],
        );
      }
    });
    // IMMEDIATE: take the write lock up front, waiting (busy timeout) rather than failing on a stale snapshot.
    this.#insert = (chunk) => transaction.immediate(chunk);
  }

  insert(chunk: readonly unknown[]): void {
    this.#insert(chunk);
    for (const value of chunk) if (typeof value === 'string') this.#sinceCheckpoint += value.length;
    if (this.#sinceCheckpoint >= CHECKPOINT_CHARS) this.checkpoint();
  }

  /** Characters written since the last checkpoint. */
  get unCheckpointed(): number {
    return this.#sinceCheckpoint;
  }

  /** Copies what this connection wrote into the database file (PASSIVE: never waits for readers). */
  checkpoint(): void {
    this.#sinceCheckpoint = 0;
    this.#db.pragma('wal_checkpoint(PASSIVE)');
  }
}

/** Writes on the calling thread, through a connection of its own. */
export function inProcessRowSink(file: string, batchId: number): StagedRowSink {
  const db = openImportConnection(file);
  const inserter = new StagedRowInserter(db, batchId);
  const close = () => {
    if (db.open) db.close();
  };
  return {
    write: (chunk) => inserter.insert(chunk),
    end: () => {
      inserter.checkpoint();
      close();
      return Promise.resolve();
    },
    abort: () => Promise.resolve(close()),
  };
}

export interface ImportTarget {
  environmentId: string;
  /** At most 255 characters. */
  sourceFileName: string;
  route: OrderRoute;
}

/**
 * Appends an order's staged-row values to `target`, in the order of `ROW_WIDTH` (from position on), and returns
 * their size in characters. Also used by live intake, which appends one message's order to its sender's batch of
 * the day.
 */
export function pushStagedRow(
  target: unknown[],
  position: number,
  order: NewStagedOrder,
  outcome?: Pick<NewStagedOrder, 'problems' | 'valid'>,
  extras?: OrderExtras,
): number {
  const valid = outcome ? outcome.valid : order.valid;
  const problemList = outcome ? outcome.problems : order.problems;
  const { orderControl, ...source } = order.source;
  const body = JSON.stringify(order.body);
  const problems = problemList.length === 0 ? '[]' : JSON.stringify(problemList);
  // An imported order's provenance is read from the importer's table, never built as a record.
  const table = extras?.provenance;
  const provenance = table
    ? encodeProvenanceEntries(table, table.file, source)
    : encodeProvenance(order.provenance, source);
  const sourceText = JSON.stringify(source);
  target.push(
    position,
    order.clinicCode,
    order.clinicOrderId,
    orderControl ?? 'NW',
    body,
    valid ? 1 : 0,
    problems,
    provenance,
    sourceText,
  );
  return body.length + problems.length + provenance.length + sourceText.length;
}

/** One import's orders on their way into a hidden batch (see the file comment). */
export class StagedBatchWriter {
  readonly batchId: number;
  readonly #db: Database.Database;
  readonly #batches: BatchesRepo;
  readonly #sink: StagedRowSink;
  readonly #release: () => void;
  #chunk: unknown[] = [];
  #chunkChars = 0;
  #count = 0;
  #valid = 0;
  #notOrders = 0;
  #state: 'open' | 'ended' | 'committed' | 'closed' = 'open';

  constructor(db: Database.Database, batches: BatchesRepo, batchId: number, sink: StagedRowSink, release: () => void) {
    this.#db = db;
    this.#batches = batches;
    this.batchId = batchId;
    this.#sink = sink;
    this.#release = release;
  }

  get count(): number {
    return this.#count;
  }

  get validCount(): number {
    return this.#valid;
  }

  /** Entries that are no order at all (a message of another type, unreadable, no item): among the invalid. */
  get notOrderCount(): number {
    return this.#notOrders;
  }

  /**
   * Adds an order (with `problems` and `valid` in place of its own, when given, and its provenance from the
   * importer's table when given); a returned promise means "wait before the next one" (chunks are pending).
   */
  add(
    order: NewStagedOrder,
    outcome?: Pick<NewStagedOrder, 'problems' | 'valid'>,
    extras?: OrderExtras,
  ): void | Promise<void> {
    if (this.#state !== 'open') throw new Error('this batch writer is no longer open');
    this.#count += 1;
    if (outcome ? outcome.valid : order.valid) this.#valid += 1;
    else if (isNotAnOrder(outcome ? outcome.problems : order.problems)) this.#notOrders += 1;
    this.#chunkChars += pushStagedRow(this.#chunk, this.#count, order, outcome, extras);
    if (this.#chunk.length >= ROWS_PER_CHUNK * ROW_WIDTH || this.#chunkChars >= CHARS_PER_CHUNK) {
      return this.#send();
    }
    return undefined;
  }

  /** Waits until every order added is written. */
  async end(): Promise<void> {
    if (this.#state !== 'open') throw new Error('this batch writer is no longer open');
    this.#state = 'ended';
    await this.#send();
    await this.#sink.end();
  }

  /**
   * After `end`, inside the caller's transaction (with the audit entry): makes the batch visible with what the
   * import found.
   */
  commit(finished: FinishedImport): BatchRecord {
    if (this.#state !== 'ended') throw new Error('end the batch writer before committing it');
    const batch = this.#batches.finishImport(this.batchId, finished);
    this.#state = 'committed';
    return batch;
  }

  /** Without a commit: deletes the batch and every row written for it. Safe to call twice. */
  async close(): Promise<void> {
    if (this.#state === 'closed') return;
    const committed = this.#state === 'committed';
    const wasOpen = this.#state === 'open';
    this.#state = 'closed';
    this.#chunk = [];
    try {
      if (wasOpen) await this.#sink.abort();
      if (!committed && this.#db.open) discardBatch(this.#db, this.batchId);
    } finally {
      this.#release();
    }
  }

  #send(): void | Promise<void> {
    if (this.#chunk.length === 0) return undefined;
    const chunk = this.#chunk;
    this.#chunk = [];
    this.#chunkChars = 0;
    return this.#sink.write(chunk);
  }
}

/** Deletes a hidden batch and its rows, in one transaction. */
export function discardBatch(db: Database.Database, batchId: number): void {
  db.transaction(() => {
    db.prepare('DELETE FROM staged_orders WHERE batch_id = ?').run(batchId);
    db.prepare('DELETE FROM import_batches WHERE id = ? AND importing = 1').run(batchId);
  }).immediate();
}
