import type Database from 'better-sqlite3';

/**
 * Live intake's records (main/core/intake/; the tables are migration 015's): every message an MLLP listener
 * received and every file a watched folder imported, with what became of it.
 *
 * - `intake_messages`: sender (MSH-3^MSH-4), control id (MSH-10), when and from which peer, the raw bytes, the
 *   outcome (`received` until it has been staged and acknowledged, then the ACK code), the ACK sent, the batch it
 *   fed. One row per sender and control id: a resend is answered from it. Rows written on the store's connection,
 *   whose commits are `synchronous=FULL` (fsync'd): a message is on disk before its ACK is written.
 * - `intake_files`: the content hash of each file a watched folder imported, so the same content is not imported
 *   twice.
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

  constructor(db: Database.Database, now: () => Date) {
    this.#db = db;
    this.#now = now;
    this.#find = db.prepare('SELECT * FROM intake_messages WHERE environment_id = ? AND sender = ? AND control_id = ?');
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
