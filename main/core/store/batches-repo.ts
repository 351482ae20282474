import type Database from 'better-sqlite3';
import { BATCH_KINDS, type BatchKind } from './order-state.js';
import { isoTime } from './time.js';

export interface NewBatch {
  environmentId: string;
  /** The imported file's base name, as the admin chose it. */
  sourceFileName: string;
  kind: BatchKind;
  /** Rows (or HL7 messages) read from the file, and how many of them failed validation. */
  rowCount: number;
  invalidCount: number;
}

export interface BatchRecord extends NewBatch {
  id: number;
  /** Orders enqueued from this batch so far. */
  orderCount: number;
  createdAt: string;
}

const COLUMNS = `id, environment_id AS environmentId, source_file_name AS sourceFileName, kind, row_count AS rowCount,
  invalid_count AS invalidCount, order_count AS orderCount, created_at AS createdAt`;

export class BatchesRepo {
  readonly #now: () => Date;
  readonly #insert: Database.Statement;
  readonly #get: Database.Statement<[number], BatchRecord>;
  readonly #list: Database.Statement<[{ environmentId: string | null }], BatchRecord>;

  constructor(db: Database.Database, now: () => Date) {
    this.#now = now;
    this.#insert = db.prepare(
      `INSERT INTO import_batches (environment_id, source_file_name, kind, row_count, invalid_count, created_at)
       VALUES (@environmentId, @sourceFileName, @kind, @rowCount, @invalidCount, @createdAt)`,
    );
    this.#get = db.prepare(`SELECT ${COLUMNS} FROM import_batches WHERE id = ?`);
    this.#list = db.prepare(
      `SELECT ${COLUMNS} FROM import_batches WHERE @environmentId IS NULL OR environment_id = @environmentId ORDER BY id DESC`,
    );
  }

  create(batch: NewBatch): BatchRecord {
    if (!(BATCH_KINDS as readonly string[]).includes(batch.kind)) throw new Error(`unknown batch kind "${batch.kind}"`);
    const result = this.#insert.run({
      environmentId: batch.environmentId,
      sourceFileName: batch.sourceFileName,
      kind: batch.kind,
      rowCount: batch.rowCount,
      invalidCount: batch.invalidCount,
      createdAt: isoTime(this.#now()),
    });
    const created = this.get(Number(result.lastInsertRowid));
    if (!created) throw new Error('import batch was not stored');
    return created;
  }

  get(id: number): BatchRecord | undefined {
    return this.#get.get(id);
  }

  /** Newest first; all environments when none is given. */
  list(environmentId?: string): BatchRecord[] {
    return this.#list.all({ environmentId: environmentId ?? null });
  }
}
