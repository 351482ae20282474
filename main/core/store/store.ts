import type Database from 'better-sqlite3';
import { join, resolve } from 'node:path';
import { AttemptsRepo } from './attempts-repo.js';
import { AuditRepo } from './audit-repo.js';
import { BatchesRepo } from './batches-repo.js';
import { CancellationsRepo } from './cancellations-repo.js';
import { acquireDataDirLock, type DataDirLock } from './data-dir-lock.js';
import { EnrichmentRepo } from './enrichment-repo.js';
import { EnvironmentsRepo } from './environments-repo.js';
import { IntakeRulesRepo } from './intake-rules-repo.js';
import { MappingProfilesRepo } from './mapping-profiles-repo.js';
import { migrate, schemaVersion } from './migrations/index.js';
import { openDatabase } from './open-database.js';
import { OrderClaims } from './order-claims.js';
import { OrderNotFound } from './order-not-found.js';
import { OrderQueries } from './order-queries.js';
import { OrderViews } from './order-views.js';
import { OrderWrites } from './order-writes.js';
import { OrdersRepo, type NewOrder } from './orders-repo.js';
import { OutboxQueueRepo } from './outbox-queue-repo.js';
import { RetentionRepo } from './retention-repo.js';
import { ensurePrivateDir, ensurePrivateFile, tightenIfPresent } from '../platform/private-files.js';
import { StagedEditsRepo } from './staged-edits-repo.js';
import { StagedOrdersRepo } from './staged-orders-repo.js';
import { StatusHistoryRepo } from './status-history-repo.js';
import type { AuditInput } from '../model/audit-entry.js';

export const STORE_FILE = 'rx-batch.sqlite';

export interface StoreOptions {
  /** The user data directory; created (0700) if missing. */
  dataDir: string;
  /** The clock for every time the store writes; tests pass a fixed one. */
  now?: () => Date;
  /** Names this program to another that finds the data directory taken (data-dir-lock.ts). */
  owner?: string;
}

/**
 * The local SQLite store: one file per data directory, opened by one process at a time. Each area has a small
 * repository with prepared statements; no SQL lives outside this folder.
 */
export class Store {
  readonly dataDir: string;
  readonly file: string;
  readonly now: () => Date;
  /** For modules of this folder only (and their tests and bench). */
  readonly db: Database.Database;
  readonly environments: EnvironmentsRepo;
  readonly batches: BatchesRepo;
  /** Orders: writes, claims, queries and the detail view's read model (orders-repo.ts composes them). */
  readonly orders: OrdersRepo;
  readonly attempts: AttemptsRepo;
  readonly statusHistory: StatusHistoryRepo;
  readonly cancellations: CancellationsRepo;
  /** What the submitter asks of the outbox: due lookups and cancels, open work, retry memory. */
  readonly outboxQueue: OutboxQueueRepo;
  readonly audit: AuditRepo;
  /** Imports waiting for review: staged orders with their problems and provenance (main/core/staging/). */
  readonly stagedOrders: StagedOrdersRepo;
  /** The edit history of staged orders: steps to undo and redo, each order's changes (migration 013). */
  readonly stagedEdits: StagedEditsRepo;
  /** Saved CSV/HL7 mapping profiles. */
  readonly mappingProfiles: MappingProfilesRepo;
  /** The service's answers for enrichment (products, stock, prices, couriers) and each batch's last check. */
  readonly enrichment: EnrichmentRepo;
  /** How long staging copies are kept, their compaction in steps, and giving freed pages back (migration 018). */
  readonly retention: RetentionRepo;
  /** Live intake's staging rules per environment (migration 019). */
  readonly intakeRules: IntakeRulesRepo;
  readonly #lock: DataDirLock;
  /** One transaction wrapper for every inTransaction call (better-sqlite3 builds four functions per wrapper). */
  readonly #transaction: Database.Transaction<(fn: () => unknown) => unknown>;
  #closed = false;

  constructor(dataDir: string, db: Database.Database, lock: DataDirLock, now: () => Date) {
    this.dataDir = dataDir;
    this.file = db.name;
    this.db = db;
    this.now = now;
    this.#lock = lock;
    this.#transaction = db.transaction((fn: () => unknown) => fn());
    this.audit = new AuditRepo(db, now);
    this.environments = new EnvironmentsRepo(db, now);
    this.batches = new BatchesRepo(db, now);
    const orderWrites = new OrderWrites(db, now, this.audit);
    this.orders = new OrdersRepo({
      writes: orderWrites,
      claims: new OrderClaims(db, now),
      queries: new OrderQueries(db),
      views: new OrderViews(db),
      notFound: new OrderNotFound(db, now, this.audit),
    });
    this.attempts = new AttemptsRepo(db, this.audit, orderWrites);
    this.statusHistory = new StatusHistoryRepo(db, now);
    this.cancellations = new CancellationsRepo(db, now);
    this.outboxQueue = new OutboxQueueRepo(db, now);
    this.stagedOrders = new StagedOrdersRepo(db, now);
    this.stagedEdits = new StagedEditsRepo(db);
    this.mappingProfiles = new MappingProfilesRepo(db, now);
    this.enrichment = new EnrichmentRepo(db, now);
    this.retention = new RetentionRepo(db, now, this.audit, (ids) => this.stagedOrders.noteRewritten(ids));
    this.intakeRules = new IntakeRulesRepo(db, now, this.audit);
  }

  get schemaVersion(): number {
    return schemaVersion(this.db);
  }

  get isOpen(): boolean {
    return !this.#closed;
  }

  /**
   * Runs `fn` in one write transaction (a savepoint when nested), so several repository calls commit together
   * or not at all: e.g. an attempt, the order's transition and their audit entries.
   */
  inTransaction<T>(fn: () => T): T {
    return this.#transaction.immediate(fn) as T;
  }

  /** Closes the database (checkpointing the WAL) and releases the data directory. Safe to call twice. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.db.close();
    } finally {
      this.#lock.release();
    }
  }
}

export function openStore(options: StoreOptions): Store {
  const dataDir = resolve(options.dataDir);
  ensurePrivateDir(dataDir);
  const lock = acquireDataDirLock(dataDir, options.owner);
  let db: Database.Database | undefined;
  try {
    const file = join(dataDir, STORE_FILE);
    ensurePrivateFile(file);
    db = openDatabase(file);
    configure(db);
    migrate(db);
    tightenIfPresent(`${file}-wal`);
    tightenIfPresent(`${file}-shm`);
    return new Store(dataDir, db, lock, options.now ?? (() => new Date()));
  } catch (error) {
    db?.close();
    lock.release();
    throw error;
  }
}

/**
 * WAL so readers never block the writer; synchronous=FULL so a commit the submitter relied on (an order marked
 * sent) survives power loss, not just a crash; foreign keys, which SQLite leaves off by default.
 */
function configure(db: Database.Database): void {
  // A new (empty) file starts in incremental auto-vacuum mode, so pages retention frees can be given back to the
  // file system in steps; an existing file keeps its mode until an explicit VACUUM (retention-repo.ts).
  if (db.pragma('page_count', { simple: true }) === 0) db.pragma('auto_vacuum = INCREMENTAL');
  const mode = db.pragma('journal_mode = WAL', { simple: true });
  if (mode !== 'wal') throw new Error(`the store needs WAL journaling, SQLite gave "${String(mode)}"`);
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  // Savepoints inside a transaction (a run of intake messages, an accept's pages, an enqueue) keep the pages they
  // change in a sub-journal, which SQLite spills to a temporary file past 64 KiB: a file created, written and deleted
  // per savepoint (bench/README.md, session 14). The rest of the store's temp data is small (retention's one-chunk
  // temp tables); VACUUM's copy of the whole file is sent to disk (retention-repo.ts).
  db.pragma('temp_store = MEMORY');
}

/** Enqueues a batch's orders in one transaction (see OrderWrites.enqueue); the bench and the importer call this. */
export function enqueueOrders(
  store: Store,
  batchId: number,
  orders: readonly NewOrder[],
  audit: Omit<AuditInput, 'environmentId' | 'batchId'> | null = null,
): number[] {
  return store.orders.enqueue(batchId, orders, audit);
}
