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

export interface BatchRecord extends Omit<NewBatch, 'route' | 'report'> {
  id: number;
  route: OrderRoute;
  report: unknown;
  /** Orders enqueued from this batch so far. */
  orderCount: number;
  createdAt: string;
}

const COLUMNS = `id, environment_id AS environmentId, source_file_name AS sourceFileName, kind, row_count AS rowCount,
  invalid_count AS invalidCount, order_count AS orderCount, created_at AS createdAt, route, report`;

type BatchRow = Omit<BatchRecord, 'report'> & { report: string | null };

const toRecord = (row: BatchRow): BatchRecord => ({
  ...row,
  report: row.report === null ? null : (JSON.parse(row.report) as unknown),
});

export class BatchesRepo {
  readonly #now: () => Date;
  readonly #insert: Database.Statement;
  readonly #get: Database.Statement<[number], BatchRow>;
  readonly #list: Database.Statement<[{ environmentId: string | null }], BatchRow>;
  readonly #setRoute: Database.Statement<[OrderRoute, number]>;

  constructor(db: Database.Database, now: () => Date) {
    this.#now = now;
    this.#insert = db.prepare(
      `INSERT INTO import_batches (environment_id, source_file_name, kind, row_count, invalid_count, created_at, route,
         report)
       VALUES (@environmentId, @sourceFileName, @kind, @rowCount, @invalidCount, @createdAt, @route, @report)`,
    );
    this.#get = db.prepare(`SELECT ${COLUMNS} FROM import_batches WHERE id = ?`);
    this.#list = db.prepare(
      `SELECT ${COLUMNS} FROM import_batches WHERE @environmentId IS NULL OR environment_id = @environmentId ORDER BY id DESC`,
    );
    this.#setRoute = db.prepare('UPDATE import_batches SET route = ? WHERE id = ?');
  }

  create(batch: NewBatch): BatchRecord {
    if (!(BATCH_KINDS as readonly string[]).includes(batch.kind)) throw new Error(`unknown batch kind "${batch.kind}"`);
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
    });
    const created = this.get(Number(result.lastInsertRowid));
    if (!created) throw new Error('import batch was not stored');
    return created;
  }

  get(id: number): BatchRecord | undefined {
    const row = this.#get.get(id);
    return row && toRecord(row);
  }

  /** Newest first; all environments when none is given. */
  list(environmentId?: string): BatchRecord[] {
    return this.#list.all({ environmentId: environmentId ?? null }).map(toRecord);
  }

  /** Chooses how the batch's orders will be sent (staging checks that the route suits the batch). */
  setRoute(id: number, route: OrderRoute): boolean {
    if (!(ORDER_ROUTES as readonly string[]).includes(route)) throw new Error(`unknown route "${route}"`);
    return this.#setRoute.run(route, id).changes === 1;
  }
}
