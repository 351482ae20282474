import type Database from 'better-sqlite3';
import type { LookupFailure } from '../../../shared/enrichment-views.js';
import { isoTime } from './time.js';

/**
 * The Order Service's answers for enrichment (migration 007), and the staged items they are about.
 *
 * `service_answers` holds the last good answer per environment and question with the time it came, plus the last
 * failed attempt beside it (a failure never overwrites an answer: offline, the older answer is still worth
 * showing with its age). `batch_enrichments` holds each batch's last check. The item rows come from the staged
 * bodies, streamed a row at a time; this ties them to `staged_orders.body` being the v1 body as JSON (dm+d codes
 * as digit strings).
 */

export const ANSWER_KINDS = ['product', 'stock', 'price', 'couriers'] as const;
export type AnswerKind = (typeof ANSWER_KINDS)[number];

export interface StoredAnswer {
  kind: AnswerKind;
  key: string;
  /** The parsed JSON of the last good answer; null when none came yet. */
  value: unknown;
  fetchedAt: string | null;
  failure: LookupFailure | null;
  failureMessage: string | null;
  failedAt: string | null;
}

export type AnswerWrite =
  | { kind: AnswerKind; key: string; value: unknown }
  | { kind: AnswerKind; key: string; failure: LookupFailure; message: string };

/** One prescribed item of a staged order, with the order's courier code, as the body holds them now. */
export interface StagedItemRow {
  stagedOrderId: number;
  position: number;
  /** The order's `prescription.courierCode` when it is text. */
  courierCode: string | null;
  /** Null for an order without items (it still gets a row, for its courier). */
  itemIndex: number | null;
  /** Digits as text (a number in the body only when it is a safe integer); null otherwise. */
  dmdCode: string | null;
  productId: number | null;
  pack: number | null;
  quantity: number | null;
  /** When the admin last edited the order (null: as imported): a check started before then did not see it. */
  editedAt: string | null;
  /** When the order was accepted (null: still staged): a check started after then did not cover it. */
  acceptedAt: string | null;
}

export interface StoredRun {
  batchId: number;
  environmentId: string;
  startedAt: string;
  finishedAt: string;
  outcome: 'complete' | 'partial' | 'cancelled';
  /** The run's summary as JSON (shape: shared/enrichment-views.ts `EnrichmentRun`). */
  summary: unknown;
}

interface AnswerRow {
  kind: AnswerKind;
  key: string;
  value: string | null;
  fetchedAt: string | null;
  failure: LookupFailure | null;
  failureMessage: string | null;
  failedAt: string | null;
}

interface BodyRow {
  id: number;
  position: number;
  body: string;
  editedAt: string | null;
  acceptedAt: string | null;
}

const record = (value: unknown): Record<string, unknown> | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

const whole = (value: unknown): number | null =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : null;

/** Digits as text; a number only when it is a safe integer (a larger one has lost digits: it is not asked about). */
function codeText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  return typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : null;
}

/**
 * One row per item of a staged body (one row with no item for an order without items). Parsed in JavaScript:
 * measured here, JSON.parse of 50,000 bodies (about 0.3 s) beats SQLite's JSON functions over them (about 0.5 s).
 */
function itemRows({ id, position, body, editedAt, acceptedAt }: BodyRow): StagedItemRow[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    parsed = undefined;
  }
  const order = record(parsed);
  const courier = record(order?.prescription)?.courierCode;
  const courierCode = typeof courier === 'string' ? courier : null;
  const items = order?.prescribedItems;
  const rows: StagedItemRow[] = [];
  if (Array.isArray(items)) {
    for (let itemIndex = 0; itemIndex < items.length; itemIndex += 1) {
      const item = record(items[itemIndex]);
      rows.push({
        stagedOrderId: id,
        position,
        courierCode,
        itemIndex,
        dmdCode: codeText(item?.dmdCode),
        productId: whole(item?.productId),
        pack: whole(item?.pack),
        quantity: whole(item?.quantity),
        editedAt,
        acceptedAt,
      });
    }
  }
  if (rows.length === 0) {
    rows.push({
      stagedOrderId: id,
      position,
      courierCode,
      itemIndex: null,
      dmdCode: null,
      productId: null,
      pack: null,
      quantity: null,
      editedAt,
      acceptedAt,
    });
  }
  return rows;
}

/** Keys per `IN (…)` query, well under SQLite's parameter limit. */
const KEYS_PER_QUERY = 400;

export class EnrichmentRepo {
  readonly #db: Database.Database;
  readonly #now: () => Date;
  readonly #saveAnswer: Database.Statement;
  readonly #saveFailure: Database.Statement;
  readonly #stagedBodies: Database.Statement<[number], BodyRow>;
  readonly #stagedBodiesAfter: Database.Statement<[number, number], BodyRow>;
  readonly #lastPosition: Database.Statement<[number], number | null>;
  readonly #pageIds: Database.Statement<[number, number, number], { id: number }>;
  readonly #saveRun: Database.Statement;
  readonly #run: Database.Statement<[number], Omit<StoredRun, 'summary'> & { summary: string }>;
  readonly #answersFor = new Map<number, Database.Statement<unknown[], AnswerRow>>();
  readonly #bodiesFor = new Map<number, Database.Statement<unknown[], BodyRow>>();
  readonly #dataVersion: Database.Statement<[], number>;
  #answerWrites = 0;

  constructor(db: Database.Database, now: () => Date) {
    this.#db = db;
    this.#now = now;
    this.#dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
    this.#saveAnswer = db.prepare(`
      INSERT INTO service_answers (environment_id, kind, key, value, fetched_at, failure, failure_message, failed_at)
      VALUES (@environmentId, @kind, @key, @value, @now, NULL, NULL, NULL)
      ON CONFLICT (environment_id, kind, key) DO UPDATE SET value = excluded.value, fetched_at = excluded.fetched_at,
        failure = NULL, failure_message = NULL, failed_at = NULL`);
    this.#saveFailure = db.prepare(`
      INSERT INTO service_answers (environment_id, kind, key, value, fetched_at, failure, failure_message, failed_at)
      VALUES (@environmentId, @kind, @key, NULL, NULL, @failure, @message, @now)
      ON CONFLICT (environment_id, kind, key) DO UPDATE SET failure = excluded.failure,
        failure_message = excluded.failure_message, failed_at = excluded.failed_at`);
    this.#stagedBodies = db.prepare(`
      SELECT id, position, body, edited_at AS editedAt, NULL AS acceptedAt
      FROM staged_orders WHERE batch_id = ? AND state = 'staged' ORDER BY position`);
    this.#stagedBodiesAfter = db.prepare(`
      SELECT id, position, body, edited_at AS editedAt, NULL AS acceptedAt
      FROM staged_orders WHERE batch_id = ? AND position > ? AND state = 'staged' ORDER BY position`);
    this.#lastPosition = db
      .prepare<[number], number | null>('SELECT max(position) FROM staged_orders WHERE batch_id = ?')
      .pluck();
    this.#pageIds = db.prepare('SELECT id FROM staged_orders WHERE batch_id = ? ORDER BY position LIMIT ? OFFSET ?');
    this.#saveRun = db.prepare(`
      INSERT INTO batch_enrichments (batch_id, environment_id, started_at, finished_at, outcome, summary)
      VALUES (@batchId, @environmentId, @startedAt, @finishedAt, @outcome, @summary)
      ON CONFLICT (batch_id) DO UPDATE SET environment_id = excluded.environment_id,
        started_at = excluded.started_at, finished_at = excluded.finished_at, outcome = excluded.outcome,
        summary = excluded.summary`);
    this.#run = db.prepare(`
      SELECT batch_id AS batchId, environment_id AS environmentId, started_at AS startedAt,
        finished_at AS finishedAt, outcome, summary
      FROM batch_enrichments WHERE batch_id = ?`);
  }

  /** Stores answers and failed attempts together, in one transaction (one fsync for many answers). */
  write(environmentId: string, writes: readonly AnswerWrite[]): void {
    if (writes.length === 0) return;
    this.#answerWrites += 1;
    const now = isoTime(this.#now());
    this.#db
      .transaction(() => {
        for (const write of writes) {
          if ('failure' in write) {
            this.#saveFailure.run({
              environmentId,
              kind: write.kind,
              key: write.key,
              failure: write.failure,
              message: write.message.slice(0, 500),
              now,
            });
          } else {
            this.#saveAnswer.run({
              environmentId,
              kind: write.kind,
              key: write.key,
              value: JSON.stringify(write.value),
              now,
            });
          }
        }
      })
      .immediate();
  }

  /** Calls of `write` since the store opened: what is derived from stored answers and kept is derived again when it moves. */
  get answerWrites(): number {
    return this.#answerWrites;
  }

  /**
   * SQLite's `data_version`: changes when another connection (an import's worker thread, another process) commits,
   * never for this connection's own writes (those are counted by `answerWrites` and `StagedOrdersRepo.writes`).
   */
  otherConnectionsVersion(): number {
    return this.#dataVersion.get() ?? 0;
  }

  /** The stored answers for some keys of one kind (keys with none are absent from the map). */
  answers(environmentId: string, kind: AnswerKind, keys: Iterable<string>): Map<string, StoredAnswer> {
    const found = new Map<string, StoredAnswer>();
    const unique = [...new Set(keys)];
    for (let start = 0; start < unique.length; start += KEYS_PER_QUERY) {
      const chunk = unique.slice(start, start + KEYS_PER_QUERY);
      for (const row of this.#answersStatement(chunk.length).all(environmentId, kind, ...chunk)) {
        found.set(row.key, {
          ...row,
          value: row.value === null ? null : (JSON.parse(row.value) as unknown),
        });
      }
    }
    return found;
  }

  /**
   * Every item of the batch's staged (not yet accepted) orders, in file order; streamed, not loaded at once. Read
   * it to the end without awaiting in between: the statement's cursor keeps the connection busy meanwhile.
   */
  *stagedItems(batchId: number): Generator<StagedItemRow> {
    for (const row of this.#stagedBodies.iterate(batchId)) for (const item of itemRows(row)) yield item;
  }

  /**
   * The items of the batch's staged orders after `position` (orders appended since a check covered the batch up to
   * there), in file order; streamed, read to the end without awaiting, as `stagedItems`.
   */
  *stagedItemsAfter(batchId: number, position: number): Generator<StagedItemRow> {
    for (const row of this.#stagedBodiesAfter.iterate(batchId, position)) for (const item of itemRows(row)) yield item;
  }

  /** The batch's last position, staged or accepted (0 when it has no orders): orders are appended after it. */
  lastPosition(batchId: number): number {
    return this.#lastPosition.get(batchId) ?? 0;
  }

  /** The items of some orders of a batch, staged or accepted (ids of other batches give nothing). */
  itemsOf(batchId: number, stagedOrderIds: readonly number[]): StagedItemRow[] {
    const rows: StagedItemRow[] = [];
    const unique = [...new Set(stagedOrderIds)];
    for (let start = 0; start < unique.length; start += KEYS_PER_QUERY) {
      const chunk = unique.slice(start, start + KEYS_PER_QUERY);
      for (const row of this.#bodiesStatement(chunk.length).all(batchId, ...chunk)) rows.push(...itemRows(row));
    }
    return rows.sort((a, b) => a.position - b.position);
  }

  /** Staged order ids of one page of a batch in file order. */
  pageIds(batchId: number, offset: number, limit: number): number[] {
    return this.#pageIds.all(batchId, limit, offset).map((row) => row.id);
  }

  saveRun(run: StoredRun): void {
    this.#saveRun.run({ ...run, summary: JSON.stringify(run.summary) });
  }

  run(batchId: number): StoredRun | undefined {
    const row = this.#run.get(batchId);
    return row && { ...row, summary: JSON.parse(row.summary) as unknown };
  }

  #answersStatement(size: number): Database.Statement<unknown[], AnswerRow> {
    let statement = this.#answersFor.get(size);
    if (!statement) {
      statement = this.#db.prepare(`
        SELECT kind, key, value, fetched_at AS fetchedAt, failure, failure_message AS failureMessage,
          failed_at AS failedAt
        FROM service_answers WHERE environment_id = ? AND kind = ? AND key IN (${placeholders(size)})`);
      this.#answersFor.set(size, statement);
    }
    return statement;
  }

  #bodiesStatement(size: number): Database.Statement<unknown[], BodyRow> {
    let statement = this.#bodiesFor.get(size);
    if (!statement) {
      // An accepted order's time is its order's creation (accepting creates it).
      statement = this.#db.prepare(`
        SELECT s.id, s.position, s.body, s.edited_at AS editedAt, o.created_at AS acceptedAt
        FROM staged_orders s LEFT JOIN orders o ON o.id = s.order_id
        WHERE s.batch_id = ? AND s.id IN (${placeholders(size)})`);
      this.#bodiesFor.set(size, statement);
    }
    return statement;
  }
}

const placeholders = (n: number) => Array.from({ length: n }, () => '?').join(', ');
