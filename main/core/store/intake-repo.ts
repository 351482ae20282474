import type Database from 'better-sqlite3';
import { ROW_WIDTH } from './staged-batch-writer.js';

/**
 * Live intake's records (main/core/intake/; the tables are migration 015's): every message an MLLP listener
 * received and every file a watched folder imported, with what became of it.
 *
 * - `intake_messages`: sender (MSH-3^MSH-4), control id (MSH-10), when and from which peer, the raw bytes, the
 *   outcome (the ACK code; `received` only in rows an earlier version recorded before answering), the ACK sent,
 *   and the batch it was staged into (NULL for AA and AE until staged, which follows the ACK). One row per sender
 *   and control id: a resend is answered from it. The intake writes a row and makes it durable before its ACK.
 * - `intake_staged_through` (migration 024): the rows up to its id need no staging; the start looks after it for
 *   messages answered and never staged (`unstaged`), and each staging moves it (`advanceStagedThrough`).
 * - `intake_files`: the content hash of each file a watched folder imported, so the same content is not imported
 *   twice.
 * - A message's order is appended to its sender's batch of the day (`openBatch`, `appendStaged`), in the
 *   transaction that records the message: the only writes the intake makes to staging's tables itself.
 */

export type IntakeOutcome = 'received' | 'AA' | 'AE' | 'AR';

export interface IntakeMessageRecord {
  id: number;
  environmentId: string;
  sender: string;
  controlId: string;
  receivedAt: string;
  peer: string;
  raw: Buffer;
  outcome: IntakeOutcome;
  ack: string | null;
  batchId: number | null;
}

interface Row {
  id: number;
  environment_id: string;
  sender: string;
  control_id: string;
  received_at: string;
  peer: string;
  raw: Buffer;
  outcome: IntakeOutcome;
  ack: string | null;
  batch_id: number | null;
}

function toRecord(row: Row): IntakeMessageRecord {
  return {
    id: row.id,
    environmentId: row.environment_id,
    sender: row.sender,
    controlId: row.control_id,
    receivedAt: row.received_at,
    peer: row.peer,
    raw: row.raw,
    outcome: row.outcome,
    ack: row.ack,
    batchId: row.batch_id,
  };
}

export class IntakeRepo {
  readonly #db: Database.Database;
  readonly #now: () => Date;
  readonly #find: Database.Statement<[string, string, string], Row>;
  readonly #insert: Database.Statement<Record<string, unknown>>;
  readonly #answer: Database.Statement<Record<string, unknown>>;
  readonly #unanswered: Database.Statement<[], Row>;
  readonly #get: Database.Statement<[number], Row>;
  readonly #batchByFile: Database.Statement<[string, string], { id: number }>;
  readonly #fileSeen: Database.Statement<[string, string], { outcome: string; batch_id: number | null }>;
  readonly #fileInsert: Database.Statement<Record<string, unknown>>;
  readonly #counts: Database.Statement<[], { outcome: string; n: number }>;
  readonly #record: Database.Statement<Record<string, unknown>>;
  readonly #openBatch: Database.Statement<[string, string], number>;
  readonly #lastPosition: Database.Statement<[number], number>;
  readonly #appendStaged: Database.Statement<unknown[]>;
  readonly #growBatch: Database.Statement<[number, number, number]>;
  readonly #setBatch: Database.Statement<[number, number]>;
  readonly #unstaged: Database.Statement<[], Row>;
  readonly #advanceStagedThrough: Database.Statement<[]>;
  readonly #fedBatch: Database.Statement<[string, string, number], number>;
  readonly #watchedFileBatch: Database.Statement<[string, number], number>;
  readonly #acceptedAs: Database.Statement<[number, string, string, number], number>;

  constructor(db: Database.Database, now: () => Date) {
    this.#db = db;
    this.#now = now;
    // `control_id <> ''` repeats the unique index's WHERE, which is how SQLite knows that partial index serves the
    // query (without it, every resend check read the whole table).
    this.#find = db.prepare(
      "SELECT * FROM intake_messages WHERE environment_id = ? AND sender = ? AND control_id = ? AND control_id <> ''",
    );
    this.#get = db.prepare('SELECT * FROM intake_messages WHERE id = ?');
    this.#insert = db.prepare(
      `INSERT INTO intake_messages (environment_id, channel, sender, control_id, received_at, peer, raw, outcome)
       VALUES (@environmentId, @channel, @sender, @controlId, @at, @peer, @raw, 'received')`,
    );
    this.#answer = db.prepare(
      `UPDATE intake_messages SET outcome = @outcome, ack = @ack, batch_id = @batchId, answered_at = @at
       WHERE id = @id`,
    );
    this.#unanswered = db.prepare("SELECT * FROM intake_messages WHERE outcome = 'received' ORDER BY id");
    this.#batchByFile = db.prepare(
      'SELECT id FROM import_batches WHERE environment_id = ? AND source_file_name = ? AND importing = 0 ORDER BY id LIMIT 1',
    );
    this.#fileSeen = db.prepare(
      'SELECT outcome, batch_id FROM intake_files WHERE environment_id = ? AND content_hash = ?',
    );
    this.#fileInsert = db.prepare(
      `INSERT OR IGNORE INTO intake_files (content_hash, environment_id, folder, file_name, imported_at, outcome, batch_id)
       VALUES (@hash, @environmentId, @folder, @fileName, @at, @outcome, @batchId)`,
    );
    this.#counts = db.prepare('SELECT outcome, count(*) AS n FROM intake_messages GROUP BY outcome');
    this.#record = db.prepare(
      `INSERT INTO intake_messages (environment_id, channel, sender, control_id, received_at, peer, raw, outcome, ack,
         batch_id, answered_at)
       VALUES (@environmentId, @channel, @sender, @controlId, @at, @peer, @raw, @outcome, @ack, @batchId, @at)`,
    );
    this.#openBatch = db
      .prepare<[string, string], number>(
        `SELECT id FROM import_batches
         WHERE environment_id = ? AND source_file_name = ? AND importing = 0 AND discarded_at IS NULL
         ORDER BY id DESC LIMIT 1`,
      )
      .pluck();
    this.#lastPosition = db
      .prepare<[number], number>('SELECT coalesce(max(position), 0) FROM staged_orders WHERE batch_id = ?')
      .pluck();
    this.#appendStaged = db.prepare(
      `INSERT INTO staged_orders (batch_id, position, clinic_code, clinic_order_id, order_control, body, valid,
         problems, provenance, source, state)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'staged')`,
    );
    this.#setBatch = db.prepare('UPDATE intake_messages SET batch_id = ? WHERE id = ? AND batch_id IS NULL');
    // Only the rows after the staged-through mark (migration 024): a range of the primary key.
    this.#unstaged = db.prepare(
      `SELECT * FROM intake_messages
       WHERE id > coalesce((SELECT message_id FROM intake_staged_through), 0)
         AND batch_id IS NULL AND outcome IN ('AA', 'AE') ORDER BY id`,
    );
    // Reads from the mark to the oldest row still waiting (or to the end: the rows since the last staging).
    this.#advanceStagedThrough = db.prepare(
      `UPDATE intake_staged_through SET message_id = coalesce(
         (SELECT m.id - 1 FROM intake_messages m
          WHERE m.id > intake_staged_through.message_id AND m.batch_id IS NULL
            AND m.outcome IN ('received', 'AA', 'AE')
          ORDER BY m.id LIMIT 1),
         (SELECT max(id) FROM intake_messages),
         message_id)
       WHERE id = 1`,
    );
    // The unique index's leading columns (environment, sender) and its WHERE: only this sender's rows are read.
    this.#fedBatch = db
      .prepare<[string, string, number], number>(
        "SELECT 1 FROM intake_messages WHERE environment_id = ? AND sender = ? AND batch_id = ? AND control_id <> '' LIMIT 1",
      )
      .pluck();
    this.#watchedFileBatch = db
      .prepare<[string, number], number>('SELECT 1 FROM intake_files WHERE environment_id = ? AND batch_id = ? LIMIT 1')
      .pluck();
    // staged_orders_by_identity: the order's batch and identity, then its accepted row.
    this.#acceptedAs = db
      .prepare<[number, string, string, number], number>(
        `SELECT id FROM staged_orders WHERE batch_id = ? AND clinic_code = ? AND clinic_order_id = ? AND order_id = ?
         LIMIT 1`,
      )
      .pluck();
    this.#growBatch = db.prepare(
      'UPDATE import_batches SET row_count = row_count + ?, invalid_count = invalid_count + ? WHERE id = ?',
    );
  }

  /**
   * Records a message with its outcome and ACK at once (it was read and decided in memory first); call inside the
   * transaction that stages it and appends its audit entry. Returns the row's id.
   */
  record(message: {
    environmentId: string;
    channel: 'mllp';
    sender: string;
    controlId: string;
    peer: string;
    raw: Buffer;
    outcome: Exclude<IntakeOutcome, 'received'>;
    ack: string;
    batchId: number | null;
  }): number {
    return Number(this.#record.run({ ...message, at: this.#now().toISOString() }).lastInsertRowid);
  }

  /** Points an answered message's row at the batch it was staged into; false if it already was staged. */
  setBatch(id: number, batchId: number): boolean {
    return this.#setBatch.run(batchId, id).changes === 1;
  }

  /** Messages answered AA or AE whose staging never committed (it follows the ACK), oldest first. */
  unstaged(): IntakeMessageRecord[] {
    return this.#unstaged.all().map(toRecord);
  }

  /**
   * Moves the staged-through mark to just below the oldest message still waiting to be staged (or to the last row
   * when none waits), so the next start reads only the rows after it; in the staging's transaction. A message
   * whose staging failed holds it below itself, so the next start stages it.
   */
  advanceStagedThrough(): void {
    this.#advanceStagedThrough.run();
  }

  /**
   * Whether a message of `sender` was staged into batch `batchId`: a day batch is one sender's, so an order
   * accepted from it came from that sender (what a cancel arriving through the intake is checked against).
   */
  fedBatch(environmentId: string, sender: string, batchId: number): boolean {
    return this.#fedBatch.get(environmentId, sender, batchId) !== undefined;
  }

  /** Whether batch `batchId` is a file a watched folder imported. */
  watchedFileBatch(environmentId: string, batchId: number): boolean {
    return this.#watchedFileBatch.get(environmentId, batchId) !== undefined;
  }

  /** The staged row an accepted order was queued from, if kept. */
  stagedRowOf(order: { id: number; batchId: number; clinicCode: string; clinicOrderId: string }): number | undefined {
    return this.#acceptedAs.get(order.batchId, order.clinicCode, order.clinicOrderId, order.id);
  }

  /** The newest visible, not discarded batch of this name (a sender's batch of the day), if any. */
  openBatch(environmentId: string, name: string): number | undefined {
    return this.#openBatch.get(environmentId, name);
  }

  /** The batch's last staged position (0 when empty). */
  lastPosition(batchId: number): number {
    return this.#lastPosition.get(batchId) ?? 0;
  }

  /**
   * Appends staged rows (values as `pushStagedRow` lays them out, positions after `lastPosition`) to a visible
   * batch and counts them in its row and invalid counts; inside the caller's transaction.
   */
  appendStaged(batchId: number, rows: readonly unknown[], invalidCount: number): void {
    if (!this.#db.inTransaction) throw new Error('appendStaged needs a transaction');
    for (let i = 0; i < rows.length; i += ROW_WIDTH) {
      this.#appendStaged.run(batchId, ...rows.slice(i, i + ROW_WIDTH));
    }
    this.#growBatch.run(rows.length / ROW_WIDTH, invalidCount, batchId);
  }

  find(environmentId: string, sender: string, controlId: string): IntakeMessageRecord | undefined {
    if (controlId === '') return undefined;
    const row = this.#find.get(environmentId, sender, controlId);
    return row ? toRecord(row) : undefined;
  }

  get(id: number): IntakeMessageRecord | undefined {
    const row = this.#get.get(id);
    return row ? toRecord(row) : undefined;
  }

  /** Records a received message (`received`); its commit is fsync'd before this returns. */
  receive(message: {
    environmentId: string;
    channel: 'mllp';
    sender: string;
    controlId: string;
    peer: string;
    raw: Buffer;
  }): IntakeMessageRecord {
    const at = this.#now().toISOString();
    const id = Number(this.#insert.run({ ...message, at }).lastInsertRowid);
    return this.get(id)!;
  }

  /** Its outcome and ACK: call inside the transaction that appends its audit entry. */
  answer(id: number, outcome: Exclude<IntakeOutcome, 'received'>, ack: string, batchId: number | null): void {
    this.#answer.run({ id, outcome, ack, batchId, at: this.#now().toISOString() });
  }

  unanswered(): IntakeMessageRecord[] {
    return this.#unanswered.all().map(toRecord);
  }

  /** The finished (visible) batch an import of this file name made, if any: a staging that happened before a crash. */
  batchForFile(environmentId: string, fileName: string): number | undefined {
    return this.#batchByFile.get(environmentId, fileName)?.id;
  }

  fileSeen(environmentId: string, hash: string): { outcome: string; batchId: number | null } | undefined {
    const row = this.#fileSeen.get(environmentId, hash);
    return row ? { outcome: row.outcome, batchId: row.batch_id } : undefined;
  }

  recordFile(file: {
    hash: string;
    environmentId: string;
    folder: string;
    fileName: string;
    outcome: 'imported' | 'failed';
    batchId: number | null;
  }): void {
    this.#fileInsert.run({ ...file, at: this.#now().toISOString() });
  }

  counts(): Record<string, number> {
    return Object.fromEntries(this.#counts.all().map((row) => [row.outcome, row.n]));
  }

  get db(): Database.Database {
    return this.#db;
  }
}
