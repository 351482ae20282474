import type Database from 'better-sqlite3';
import { BATCH_KINDS, ORDER_ROUTES, type BatchKind, type OrderRoute } from './order-state.js';
import { isoTime } from './time.js';

export interface NewBatch {
  environmentId: string;
  /** The imported file's base name, as the admin chose it. */
  sourceFileName: string;
  kind: BatchKind;
  /** Rows (or HL7 messages) read from the file, and how many of them failed validation. */
  rowCount: number;
  invalidCount: number;
  /** How its orders will be sent (default v1 create-with-clinic). */
  route?: OrderRoute;
  /** What the import found out about the file (JSON-serialisable; staging defines its shape). */
  report?: unknown;
}

/** What an import's batch gets once its file has been read (see `beginImport`). */
export interface FinishedImport {
  kind: BatchKind;
  rowCount: number;
  invalidCount: number;
  report?: unknown;
}

export interface BatchRecord extends Omit<NewBatch, 'route' | 'report'> {
  id: number;
  route: OrderRoute;
  report: unknown;
  /** Orders enqueued from this batch so far. */
  orderCount: number;
  createdAt: string;
  /** When the admin discarded the batch (its staged orders are never accepted); null while it is not. */
  discardedAt: string | null;
}

const COLUMNS = `id, environment_id AS environmentId, source_file_name AS sourceFileName, kind, row_count AS rowCount,
  invalid_count AS invalidCount, order_count AS orderCount, created_at AS createdAt, route, report,
  discarded_at AS discardedAt`;

type BatchRow = Omit<BatchRecord, 'report'> & { report: string | null };

const toRecord = (row: BatchRow): BatchRecord => ({
  ...row,
  report: row.report === null ? null : (JSON.parse(row.report) as unknown),
});

function checkKind(kind: string): void {
  if (!(BATCH_KINDS as readonly string[]).includes(kind)) throw new Error(`unknown batch kind "${kind}"`);
}

export class BatchesRepo {
  readonly #now: () => Date;
  readonly #insert: Database.Statement;
  readonly #get: Database.Statement<[number], BatchRow>;
  readonly #list: Database.Statement<
    [{ environmentId: string | null; before: number | null; limit: number }],
    BatchRow
  >;
  readonly #setRoute: Database.Statement<[OrderRoute, number]>;
  readonly #finishImport: Database.Statement;
  readonly #discard: Database.Statement<[string, number]>;
  readonly #importing: Database.Statement<[string], { n: number }>;

  constructor(db: Database.Database, now: () => Date) {
    this.#now = now;
    this.#insert = db.prepare(
      `INSERT INTO import_batches (environment_id, source_file_name, kind, row_count, invalid_count, created_at, route,
         report, importing)
       VALUES (@environmentId, @sourceFileName, @kind, @rowCount, @invalidCount, @createdAt, @route, @report, @importing)`,
    );
    // A batch still being imported (migration 008) is nobody's to see yet.
    this.#get = db.prepare(`SELECT ${COLUMNS} FROM import_batches WHERE id = ? AND importing = 0`);
    this.#importing = db.prepare(
      'SELECT count(*) AS n FROM import_batches WHERE environment_id = ? AND importing = 1 AND discarded_at IS NULL',
    );
    this.#list = db.prepare(
      `SELECT ${COLUMNS} FROM import_batches
       WHERE importing = 0 AND (@environmentId IS NULL OR environment_id = @environmentId)
         AND (@before IS NULL OR id < @before)
       ORDER BY id DESC LIMIT @limit`,
    );
    this.#finishImport = db.prepare(
      `UPDATE import_batches SET kind = @kind, row_count = @rowCount, invalid_count = @invalidCount,
         created_at = @createdAt, report = @report, importing = 0
       WHERE id = @id AND importing = 1`,
    );
    this.#setRoute = db.prepare('UPDATE import_batches SET route = ? WHERE id = ?');
    this.#discard = db.prepare(
      'UPDATE import_batches SET discarded_at = ? WHERE id = ? AND importing = 0 AND discarded_at IS NULL',
    );
  }

  create(batch: NewBatch): BatchRecord {
    const id = this.#insertRow(batch, 0);
    const created = this.get(id);
    if (!created) throw new Error('import batch was not stored');
    return created;
  }

  /**
   * The row of a batch whose orders are about to stream in; hidden from `get` and `list` until `finishImport`.
   * Kind and counts are placeholders until then (the file decides its kind).
   */
  beginImport(batch: Pick<NewBatch, 'environmentId' | 'sourceFileName' | 'route'>): number {
    return this.#insertRow({ ...batch, kind: 'csv', rowCount: 0, invalidCount: 0 }, 1);
  }

  /** Makes an imported batch visible with what the import found; inside the caller's transaction. */
  finishImport(id: number, finished: FinishedImport): BatchRecord {
    checkKind(finished.kind);
    const changed = this.#finishImport.run({
      id,
      kind: finished.kind,
      rowCount: finished.rowCount,
      invalidCount: finished.invalidCount,
      createdAt: isoTime(this.#now()),
      report: finished.report === undefined ? null : JSON.stringify(finished.report),
    }).changes;
    const batch = changed === 1 ? this.get(id) : undefined;
    if (!batch) throw new Error(`import batch ${id} is not being imported`);
    return batch;
  }

  #insertRow(batch: NewBatch, importing: 0 | 1): number {
    checkKind(batch.kind);
    const route = batch.route ?? 'v1';
    if (!(ORDER_ROUTES as readonly string[]).includes(route)) throw new Error(`unknown route "${route}"`);
    const result = this.#insert.run({
      environmentId: batch.environmentId,
      sourceFileName: batch.sourceFileName,
      kind: batch.kind,
      rowCount: batch.rowCount,
      invalidCount: batch.invalidCount,
      createdAt: isoTime(this.#now()),
      route,
      report: batch.report === undefined ? null : JSON.stringify(batch.report),
      importing,
    });
    return Number(result.lastInsertRowid);
  }

  get(id: number): BatchRecord | undefined {
    const row = this.#get.get(id);
    return row && toRecord(row);
  }

  /**
   * Newest first; all environments when none is given. `before`: only batches older than that one (the next page
   * after a page ending with it); `limit`: at most that many (all when not given).
   */
  list(environmentId?: string, page: { before?: number; limit?: number } = {}): BatchRecord[] {
    return this.#list
      .all({ environmentId: environmentId ?? null, before: page.before ?? null, limit: page.limit ?? -1 })
      .map(toRecord);
  }

  /** Chooses how the batch's orders will be sent (staging checks that the route suits the batch). */
  setRoute(id: number, route: OrderRoute): boolean {
    if (!(ORDER_ROUTES as readonly string[]).includes(route)) throw new Error(`unknown route "${route}"`);
    return this.#setRoute.run(route, id).changes === 1;
  }

  /** Imports into the environment still being read (their batches are not listed until they finish). */
  importingCount(environmentId: string): number {
    return this.#importing.get(environmentId)?.n ?? 0;
  }

  /** Marks a batch discarded (staging refuses every change and accept after this); false when it already was. */
  discard(id: number): boolean {
    return this.#discard.run(isoTime(this.#now()), id).changes === 1;
  }
}
