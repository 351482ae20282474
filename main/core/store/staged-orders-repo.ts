import type Database from 'better-sqlite3';
import { NOT_AN_ORDER_CODES, type OrderControl, type Problem } from '../model/imported-order.js';
import { BatchesRepo } from './batches-repo.js';
import { namesNotAnOrder } from './not-an-order-sql.js';
import { COMPACTED_FILL_COLUMNS, expandCompacted, HAS_PROBLEMS } from './compacted-staged-rows.js';
import { openDatabase } from './open-database.js';
import { NOT_ACCEPTED_STATES, type StagedOrderState } from './order-state.js';
import { decodeProvenance, encodeProvenance } from './provenance-codec.js';
import {
  StagedBatchWriter,
  discardBatch,
  inProcessRowSink,
  type ImportTarget,
  type OpenRowSink,
} from './staged-batch-writer.js';
import { isoTime } from './time.js';

/**
 * Staged orders: what an import produced, kept until the admin accepts it into the outbox. Each row holds the v1
 * body (dm+d codes as digit strings), its problems and provenance, and the source (CSV records, HL7 message).
 *
 * A batch is written through a `StagedBatchWriter` (staged-batch-writer.ts): rows go straight into this table as the
 * importer hands orders over (memory stays flat), under a batch row that stays hidden until the writer commits it
 * together with its audit entry; a cancelled or failed import deletes its batch and rows. The import's awaits never
 * hold a transaction open on the shared connection, so the submitter's commits in the meantime are its own.
 */

export type { StagedOrderState } from './order-state.js';
export type { NewStagedOrder, StagedOrderSource, StagedProvenance } from './staged-order-types.js';
import type { StagedOrderSource, StagedProvenance } from './staged-order-types.js';

export interface StagedOrder {
  id: number;
  batchId: number;
  /** 1-based position in the file (the order in which the importer finished the orders). */
  position: number;
  clinicCode: string | null;
  clinicOrderId: string | null;
  orderControl: OrderControl;
  /** The create-with-clinic v1 body as imported or edited; dm+d codes are digit strings. */
  body: unknown;
  valid: boolean;
  problems: Problem[];
  provenance: Record<string, StagedProvenance>;
  source: StagedOrderSource;
  state: StagedOrderState;
  /** The outbox order it became (for a cancel message: the order it cancelled). */
  orderId: number | null;
  editedAt: string | null;
}

/** The changeable part of a staged order, as an edit or a re-assessment writes it. */
export interface StagedOrderUpdate {
  clinicCode: string | null;
  clinicOrderId: string | null;
  body: unknown;
  valid: boolean;
  problems: Problem[];
  provenance: Record<string, StagedProvenance>;
  /** The order's source (unchanged by an update): provenance is stored relative to it. */
  source: Pick<StagedOrderSource, 'file' | 'hl7' | 'message'>;
  edited: boolean;
  /** Clears the edit time: an undo brought every field back to what the import read. */
  unedited?: boolean;
}

/** What accepting needs of a staged order: no problems or provenance to parse. */
export interface AcceptCandidate {
  id: number;
  position: number;
  clinicCode: string | null;
  clinicOrderId: string | null;
  orderControl: OrderControl;
  body: unknown;
  source: StagedOrderSource;
  edited: boolean;
}

export interface StagedCounts {
  total: number;
  staged: number;
  /** Staged and valid (would be accepted now). */
  valid: number;
  /** Staged and not valid. */
  invalid: number;
  /** Of the invalid, the entries that are no order at all (NOT_AN_ORDER_CODES). */
  notOrders: number;
  accepted: number;
}

interface StagedRow {
  id: number;
  batchId: number;
  position: number;
  clinicCode: string | null;
  clinicOrderId: string | null;
  orderControl: OrderControl;
  body: string;
  valid: number;
  problems: string;
  provenance: string;
  source: string;
  state: StagedOrderState;
  orderId: number | null;
  editedAt: string | null;
  /** A compacted row's batch file name (compacted-staged-rows.ts); null for a row that keeps its copies. */
  batchFile: string | null;
}

/** The partial unique index orders_accepted_once answers this without reading the order. */
const ACCEPTED_SQL = `SELECT 1 FROM orders WHERE environment_id = ? AND clinic_code = ? AND clinic_order_id = ?
  AND state NOT IN (${NOT_ACCEPTED_STATES.map((state) => `'${state}'`).join(', ')})`;

/**
 * An earlier new order of the batch with the same identity: a row that holds it, or a compacted one that leaves its
 * clinic code to its order (compacted-staged-rows.ts). INDEXED BY: left to itself the planner takes
 * staged_orders_by_position for the ORDER BY, whose range (every earlier position of the batch) made each lookup
 * read the batch so far, so a find-and-replace over a 50,000-order batch took minutes (staged-orders-writes.test).
 */
export const EARLIER_TWIN_SQL = `SELECT min(position) FROM (
  SELECT position FROM staged_orders INDEXED BY staged_orders_by_identity
  WHERE batch_id = @batchId AND clinic_code = @clinicCode AND clinic_order_id = @clinicOrderId
    AND position < @position AND order_control = 'NW'
  UNION ALL
  SELECT s.position FROM staged_orders s INDEXED BY staged_orders_by_identity
  WHERE s.batch_id = @batchId AND s.clinic_code IS NULL AND s.clinic_order_id = @clinicOrderId
    AND s.position < @position AND s.order_control = 'NW' AND s.compacted_at IS NOT NULL
    AND (SELECT o.clinic_code FROM orders o WHERE o.id = s.order_id) = @clinicCode)`;

/** A batch's entries that are no order at all: migration 025's partial index holds exactly these. */
export const NOT_ORDERS_SQL = `SELECT count(*) AS n FROM staged_orders
  WHERE batch_id = ? AND valid = 0 AND ${namesNotAnOrder(NOT_AN_ORDER_CODES)}`;

/** Lookups per read transaction of an AcceptedOrdersLookup. */
const LOOKUPS_PER_SNAPSHOT = 1000;

/**
 * "Was this order accepted already?" for every order of an import. Each lookup on its own pays for a read
 * transaction (the WAL's read lock), which is most of its cost; this keeps one open for LOOKUPS_PER_SNAPSHOT lookups
 * (five to eight times cheaper), on a read-only connection of its own so the store's connection, which the
 * submitter writes through meanwhile, never has a transaction it did not open. A snapshot a moment old sees what
 * `isAccepted` would; an order accepted while the import runs is caught again by accept, which checks itself.
 */
export class AcceptedOrdersLookup {
  readonly #db: Database.Database;
  readonly #environmentId: string;
  readonly #get: Database.Statement<[string, string, string], number>;
  #lookups = 0;

  constructor(file: string, environmentId: string) {
    this.#db = openDatabase(file, { readonly: true });
    this.#environmentId = environmentId;
    this.#get = this.#db.prepare<[string, string, string], number>(ACCEPTED_SQL).pluck();
  }

  has(clinicCode: string, clinicOrderId: string): boolean {
    if (this.#lookups === 0) this.#db.exec('BEGIN');
    this.#lookups += 1;
    const found = this.#get.get(this.#environmentId, clinicCode, clinicOrderId) !== undefined;
    if (this.#lookups >= LOOKUPS_PER_SNAPSHOT) this.#endSnapshot();
    return found;
  }

  close(): void {
    if (!this.#db.open) return;
    this.#endSnapshot();
    this.#db.close();
  }

  #endSnapshot(): void {
    if (this.#lookups > 0) this.#db.exec('COMMIT');
    this.#lookups = 0;
  }
}

const COLUMNS = `id, batch_id AS batchId, position, clinic_order_id AS clinicOrderId,
  order_control AS orderControl, body, valid, problems, provenance, source, state, order_id AS orderId,
  edited_at AS editedAt, ${COMPACTED_FILL_COLUMNS}`;

function toStaged(row: StagedRow): StagedOrder {
  const { batchFile: _batchFile, ...columns } = row;
  const texts = expandCompacted(row);
  return {
    ...columns,
    body: JSON.parse(texts.body) as unknown,
    valid: row.valid === 1,
    problems: JSON.parse(texts.problems) as Problem[],
    provenance: texts.provenance === null ? {} : decodeProvenance(texts.provenance, texts.source),
    source: texts.source,
  };
}

export interface StagedPageQuery {
  batchId: number;
  offset: number;
  limit: number;
  /** Only orders with a problem (an error or a warning). */
  onlyProblems?: boolean;
}

/** Writes whose staged order ids are kept for `writtenSince` (between this and twice this many). */
const WRITES_LOGGED = 1000;

export class StagedOrdersRepo {
  readonly #db: Database.Database;
  readonly #now: () => Date;
  readonly #get: Database.Statement<[number], StagedRow>;
  readonly #page: Database.Statement<[Record<string, number>], StagedRow>;
  readonly #after: Database.Statement<[Record<string, number | string | null>], StagedRow>;
  readonly #count: Database.Statement<[number, number], { n: number }>;
  readonly #counts: Database.Statement<[number], { state: StagedOrderState; valid: number; n: number }>;
  readonly #notOrders: Database.Statement<[number], { n: number }>;
  readonly #update: Database.Statement;
  readonly #accept: Database.Statement<[number, number]>;
  readonly #earlierTwin: Database.Statement<[Record<string, string | number>], number | null>;
  readonly #acceptedAs: Database.Statement<[number, string, string, number], number>;
  readonly #candidates: Database.Statement<
    [number, number, number],
    Omit<AcceptCandidate, 'body' | 'source' | 'edited'> & { body: string; source: string; edited: number }
  >;

  readonly #problemAfter: Database.Statement<[number, number], { id: number; position: number }>;
  readonly #problemBefore: Database.Statement<[number, number], { id: number; position: number }>;
  readonly #problemsBefore: Database.Statement<[number, number], number>;
  readonly #problemFields: Database.Statement<[number], { field: string | null; severity: string; n: number }>;

  readonly #batches: BatchesRepo;
  /** Hidden batches this store's writers are filling now. */
  readonly #importing = new Set<number>();
  readonly #unfinished: Database.Statement<[], number>;
  readonly #accepted: Database.Statement<[string, string, string], number>;
  #writes = 0;
  /** The staged order id of each of the latest writes: write number `#loggedFrom + i + 1` is `#written[i]`. */
  #written: number[] = [];
  #loggedFrom = 0;

  constructor(db: Database.Database, now: () => Date) {
    this.#db = db;
    this.#now = now;
    this.#batches = new BatchesRepo(db, now);
    this.#unfinished = db.prepare<[], number>('SELECT id FROM import_batches WHERE importing = 1').pluck();
    this.#accepted = db.prepare<[string, string, string], number>(ACCEPTED_SQL).pluck();
    this.#get = db.prepare(`SELECT ${COLUMNS} FROM staged_orders WHERE id = ?`);
    this.#page = db.prepare(`
      SELECT ${COLUMNS} FROM staged_orders
      WHERE batch_id = @batchId AND (@onlyProblems = 0 OR ${HAS_PROBLEMS})
      ORDER BY position LIMIT @limit OFFSET @offset`);
    this.#after = db.prepare(`
      SELECT ${COLUMNS} FROM staged_orders
      WHERE batch_id = @batchId AND position > @afterPosition
        AND (@state IS NULL OR state = @state) AND (@valid IS NULL OR valid = @valid)
      ORDER BY position LIMIT @limit`);
    this.#count = db.prepare(
      `SELECT count(*) AS n FROM staged_orders WHERE batch_id = ? AND (? = 0 OR ${HAS_PROBLEMS})`,
    );
    this.#counts = db.prepare(
      'SELECT state, valid, count(*) AS n FROM staged_orders WHERE batch_id = ? GROUP BY state, valid',
    );
    this.#notOrders = db.prepare(NOT_ORDERS_SQL);
    this.#update = db.prepare(`
      UPDATE staged_orders SET clinic_code = @clinicCode, clinic_order_id = @clinicOrderId, body = @body,
        valid = @valid, problems = @problems, provenance = @provenance,
        edited_at = CASE WHEN @unedited THEN NULL WHEN @edited THEN @now ELSE edited_at END
      WHERE id = @id AND state = 'staged'`);
    this.#accept = db.prepare(
      `UPDATE staged_orders SET state = 'accepted', order_id = ? WHERE id = ? AND state = 'staged'`,
    );
    this.#earlierTwin = db.prepare<[Record<string, string | number>], number | null>(EARLIER_TWIN_SQL).pluck();
    // staged_orders_by_identity, then the one row that became the order.
    this.#acceptedAs = db
      .prepare<[number, string, string, number], number>(
        `SELECT id FROM staged_orders WHERE batch_id = ? AND clinic_code = ? AND clinic_order_id = ? AND order_id = ?
         LIMIT 1`,
      )
      .pluck();
    this.#problemAfter = db.prepare(`
      SELECT id, position FROM staged_orders WHERE batch_id = ? AND position > ? AND ${HAS_PROBLEMS}
      ORDER BY position LIMIT 1`);
    this.#problemBefore = db.prepare(`
      SELECT id, position FROM staged_orders WHERE batch_id = ? AND position < ? AND ${HAS_PROBLEMS}
      ORDER BY position DESC LIMIT 1`);
    this.#problemsBefore = db
      .prepare<[number, number], number>(
        `SELECT count(*) FROM staged_orders WHERE batch_id = ? AND position < ? AND ${HAS_PROBLEMS}`,
      )
      .pluck();
    this.#problemFields = db.prepare(`
      SELECT json_extract(p.value, '$.field') AS field, json_extract(p.value, '$.severity') AS severity, count(*) AS n
      FROM staged_orders o, json_each(o.problems) p
      WHERE o.batch_id = ? AND o.state = 'staged' AND o.${HAS_PROBLEMS}
      GROUP BY 1, 2`);
    this.#candidates = db.prepare(`
      SELECT id, position, clinic_code AS clinicCode, clinic_order_id AS clinicOrderId, order_control AS orderControl,
        body, json_remove(source, '$.records') AS source, edited_at IS NOT NULL AS edited
      FROM staged_orders
      WHERE batch_id = ? AND state = 'staged' AND valid = 1 AND position > ?
      ORDER BY position LIMIT ?`);
  }

  /**
   * Starts an import's batch, hidden until the writer commits it (staged-batch-writer.ts); `openSink` decides
   * where the rows are written (default: on this thread). First deletes what imports of a process that died left.
   */
  writer(target: ImportTarget, openSink: OpenRowSink = inProcessRowSink): StagedBatchWriter {
    this.#removeUnfinished();
    const batchId = this.#batches.beginImport(target);
    this.#importing.add(batchId);
    const release = () => this.#importing.delete(batchId);
    let sink;
    try {
      sink = openSink(this.#db.name, batchId);
    } catch (error) {
      release();
      discardBatch(this.#db, batchId);
      throw error;
    }
    return new StagedBatchWriter(this.#db, this.#batches, batchId, sink, release);
  }

  /** Whether an order with this identity is already in the environment's outbox (queued, sent or later). */
  isAccepted(environmentId: string, clinicCode: string, clinicOrderId: string): boolean {
    return this.#accepted.get(environmentId, clinicCode, clinicOrderId) !== undefined;
  }

  /** `isAccepted` for the many orders of one import, on a connection of its own (see AcceptedOrdersLookup). */
  acceptedLookup(environmentId: string): AcceptedOrdersLookup {
    return new AcceptedOrdersLookup(this.#db.name, environmentId);
  }

  /** Hidden batches no writer of this store is filling: left by a process that died mid-import. */
  #removeUnfinished(): void {
    for (const batchId of this.#unfinished.all()) {
      if (!this.#importing.has(batchId)) discardBatch(this.#db, batchId);
    }
  }

  get(id: number): StagedOrder | undefined {
    const row = this.#get.get(id);
    return row && toStaged(row);
  }

  /** One page of a batch in file order (offset paging, for the review screen). */
  page(query: StagedPageQuery): { orders: StagedOrder[]; total: number } {
    const onlyProblems = query.onlyProblems ? 1 : 0;
    const rows = this.#page.all({ batchId: query.batchId, onlyProblems, limit: query.limit, offset: query.offset });
    return { orders: rows.map(toStaged), total: this.#count.get(query.batchId, onlyProblems)?.n ?? 0 };
  }

  /** Keyset paging in file order, for walking a whole batch (accept, replace, exports). */
  after(
    batchId: number,
    afterPosition: number,
    limit: number,
    filter: { state?: StagedOrderState; valid?: boolean } = {},
  ): StagedOrder[] {
    return this.#after
      .all({
        batchId,
        afterPosition,
        limit,
        state: filter.state ?? null,
        valid: filter.valid === undefined ? null : filter.valid ? 1 : 0,
      })
      .map(toStaged);
  }

  /**
   * The nearest order with a problem (an error or a warning) after (`next`) or before (`previous`) a position, and
   * its place among the batch's orders with problems (0-based: the problems filter's index).
   */
  problemNear(
    batchId: number,
    position: number,
    direction: 'next' | 'previous',
  ): { id: number; position: number; problemIndex: number } | undefined {
    const found = (direction === 'next' ? this.#problemAfter : this.#problemBefore).get(batchId, position);
    if (!found) return undefined;
    return { ...found, problemIndex: this.#problemsBefore.get(batchId, found.position) ?? 0 };
  }

  /** Problems of a batch's staged orders counted by concrete field path (null: about the whole order) and severity. */
  problemFields(batchId: number): Array<{ field: string | null; severity: 'error' | 'warning'; count: number }> {
    return this.#problemFields.all(batchId).map((row) => ({
      field: row.field,
      severity: row.severity === 'error' ? 'error' : 'warning',
      count: row.n,
    }));
  }

  counts(batchId: number): StagedCounts {
    const counts: StagedCounts = { total: 0, staged: 0, valid: 0, invalid: 0, notOrders: 0, accepted: 0 };
    for (const { state, valid, n } of this.#counts.all(batchId)) {
      counts.total += n;
      if (state === 'accepted') counts.accepted += n;
      else {
        counts.staged += n;
        if (valid === 1) counts.valid += n;
        else counts.invalid += n;
      }
    }
    // An accepted entry is valid: every invalid one is still staged.
    if (counts.invalid > 0) counts.notOrders = this.#notOrders.get(batchId)?.n ?? 0;
    return counts;
  }

  /**
   * Rewrites (edits, accepts) of staged orders through this repository since the store opened, counted before
   * each write (a rolled-back one counts too: harmless). What is derived from a batch's staged orders and kept
   * (enrichment's list of orders with service warnings) is derived again when this moves.
   */
  get writes(): number {
    return this.#writes;
  }

  /**
   * The staged orders rewritten since `writes` was `since` (repeats possible), or undefined when that is further
   * back than the log keeps: then whatever was derived must be derived again in full.
   */
  writtenSince(since: number): number[] | undefined {
    if (since < this.#loggedFrom || since > this.#writes) return undefined;
    return this.#written.slice(since - this.#loggedFrom);
  }

  /** Staged orders rewritten or deleted elsewhere in the store (retention): counted as writes. */
  noteRewritten(ids: readonly number[]): void {
    for (const id of ids) this.#logWrite(id);
  }

  #logWrite(id: number): void {
    this.#writes += 1;
    this.#written.push(id);
    if (this.#written.length >= 2 * WRITES_LOGGED) {
      const dropped = this.#written.length - WRITES_LOGGED;
      this.#written.splice(0, dropped);
      this.#loggedFrom += dropped;
    }
  }

  /** Rewrites a staged order's body, problems and provenance; false when it is not staged (accepted meanwhile). */
  update(id: number, update: StagedOrderUpdate): boolean {
    this.#logWrite(id);
    return (
      this.#update.run({
        id,
        clinicCode: update.clinicCode,
        clinicOrderId: update.clinicOrderId,
        body: JSON.stringify(update.body),
        valid: update.valid ? 1 : 0,
        problems: JSON.stringify(update.problems),
        provenance: encodeProvenance(update.provenance, update.source),
        edited: update.edited ? 1 : 0,
        unedited: update.unedited ? 1 : 0,
        now: isoTime(this.#now()),
      }).changes === 1
    );
  }

  /** Staged valid orders after a position, with only what accepting them needs. */
  acceptCandidates(batchId: number, afterPosition: number, limit: number): AcceptCandidate[] {
    return this.#candidates.all(batchId, afterPosition, limit).map((row) => ({
      ...row,
      body: JSON.parse(row.body) as unknown,
      source: JSON.parse(row.source) as StagedOrderSource,
      edited: row.edited === 1,
    }));
  }

  /**
   * The staged order an accepted order was accepted from, if its row is still there: its copies (the HL7 message
   * among them) stay while the order is open (retention-repo.ts).
   */
  acceptedRowOf(order: { id: number; batchId: number; clinicCode: string; clinicOrderId: string }): number | undefined {
    return this.#acceptedAs.get(order.batchId, order.clinicCode, order.clinicOrderId, order.id);
  }

  /** The position of an earlier new order of the batch with the same clinic and clinic order id, if any. */
  earlierWithIdentity(
    batchId: number,
    clinicCode: string,
    clinicOrderId: string,
    position: number,
  ): number | undefined {
    return this.#earlierTwin.get({ batchId, clinicCode, clinicOrderId, position }) ?? undefined;
  }

  /** Marks a staged order accepted, naming the outbox order it became; false when it was not staged. */
  markAccepted(id: number, orderId: number): boolean {
    this.#logWrite(id);
    return this.#accept.run(orderId, id).changes === 1;
  }
}
