import type Database from 'better-sqlite3';
import type { OrderRoute } from './order-state.js';
import { PACKED_BODY_MARK, packRequestBody } from './request-body-codec.js';

/**
 * Retention's second part (migration 020): a finished order's request body, once the order was accepted
 * `staged_days` ago, is stored packed (`request-body-codec.ts`: deflate with a preset dictionary, checksummed), so
 * it takes about a quarter of its bytes and reads back as the same text. Lossless, so it loses nothing the detail
 * view, the batch view or a retry needs; still only finished orders (`FINISHED_ORDER_WHERE`), so the body of an order
 * the outbox may still send, reconcile or cancel stays the text the submitter reads.
 *
 * A run walks `orders_bodies_to_pack` (orders whose body is still text) in id order, a window at a time, up to the
 * first order accepted after the cutoff (ids grow with acceptance; one accepted out of order under a clock that
 * went back just waits for a later run). What it reads is what is open or new, not the history.
 */

export interface BodyPackingStep {
  /** Orders whose body this step packed. */
  packed: number;
  /** The last order id this step looked at: the next step starts after it. */
  after: number;
  /** False once the walk reached orders accepted after the cutoff, or the end. */
  more: boolean;
}

interface Candidate {
  id: number;
  /** 1 when the order was accepted before the cutoff. */
  old: number;
  /** 1 when nothing more will happen to it. */
  finished: number;
}

export class BodyPacking {
  readonly #db: Database.Database;
  readonly #candidates: Database.Statement<[{ after: number; cutoff: string; limit: number }], Candidate>;
  readonly #step: Database.Transaction<(cutoff: string, after: number, limit: number) => BodyPackingStep>;
  /** The statements that rewrite picked rows (prepared at the first step: they need a temp table). */
  #rewrite: ((ids: readonly number[]) => number) | undefined;

  constructor(db: Database.Database, finishedWhere: string) {
    this.#db = db;
    this.#candidates = db.prepare(BODY_PACKING_READS.candidates(finishedWhere));
    this.#step = db.transaction((cutoff, after, limit) => this.#stepNow(cutoff, after, limit));
  }

  /**
   * One short transaction: the next `limit` orders whose body is text, those finished and old enough packed.
   *
   * Foreign keys are not enforced during the step (when it is not inside a caller's transaction, where the pragma
   * cannot change): deleting an order makes SQLite look for the rows that name it, and `staged_orders.order_id` has
   * no index, so each deleted order read the whole staged_orders table (a 50-order step took 540 ms at 20,000
   * orders, growing with the history). The step puts back exactly the ids it deleted (it checks the count), with
   * the same columns, so no reference can break; enforcement is back on before anything else runs.
   */
  step(cutoff: string, after: number, limit: number): BodyPackingStep {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError('a packing step needs a limit of 1 or more');
    const db = this.#db;
    const enforced = !db.inTransaction && db.pragma('foreign_keys', { simple: true }) === 1;
    if (enforced) db.pragma('foreign_keys = OFF');
    try {
      return this.#step.immediate(cutoff, after, limit);
    } finally {
      if (enforced) db.pragma('foreign_keys = ON');
    }
  }

  #stepNow(cutoff: string, after: number, limit: number): BodyPackingStep {
    const rows = this.#candidates.all({ after, cutoff, limit });
    const firstNew = rows.findIndex((row) => row.old !== 1);
    const seen = firstNew === -1 ? rows : rows.slice(0, firstNew);
    const ids = seen.filter((row) => row.finished === 1).map((row) => row.id);
    const packed = ids.length === 0 ? 0 : this.#rewriter()(ids);
    return {
      packed,
      after: seen.at(-1)?.id ?? after,
      more: firstNew === -1 && rows.length === limit,
    };
  }

  /** Its temp table was dropped (the connection's temp_store changed): made again, with its statements, when needed. */
  forgetTempTable(): void {
    this.#rewrite = undefined;
  }

  /**
   * Rewrites picked orders with their bodies packed. As for staged rows (retention-repo.ts), not an UPDATE: SQLite
   * does not merge the pages of rows that shrink in place, but does after a DELETE. Each row is copied whole into a
   * temp table, its body packed there, deleted and inserted again under the same id (the rows that reference it:
   * attempts, history, items, surnames, staged orders; see `step` for their checks), and the per-state counts'
   * delete and insert triggers cancel out.
   */
  #rewriter(): (ids: readonly number[]) => number {
    if (this.#rewrite) return this.#rewrite;
    const db = this.#db;
    db.exec('CREATE TEMP TABLE IF NOT EXISTS retention_order_rows AS SELECT * FROM main.orders WHERE 0');
    const clear = db.prepare('DELETE FROM temp.retention_order_rows');
    const copy = db.prepare(`INSERT INTO temp.retention_order_rows SELECT * FROM main.orders
      WHERE id IN (SELECT value FROM json_each(?)) AND request_body_packed IS NULL`);
    const bodies = db.prepare<[], { id: number; route: OrderRoute; body: string }>(
      'SELECT id, route, request_body AS body FROM temp.retention_order_rows ORDER BY id',
    );
    const pack = db.prepare<[string, Buffer, number]>(
      'UPDATE temp.retention_order_rows SET request_body = ?, request_body_packed = ? WHERE id = ?',
    );
    const remove = db.prepare('DELETE FROM main.orders WHERE id IN (SELECT id FROM temp.retention_order_rows)');
    const restore = db.prepare('INSERT INTO main.orders SELECT * FROM temp.retention_order_rows ORDER BY id');
    this.#rewrite = (ids) => {
      // Enforced only inside a caller's transaction: then checked at its commit, once every order is back.
      if (db.pragma('foreign_keys', { simple: true }) === 1) db.pragma('defer_foreign_keys = ON');
      clear.run();
      copy.run(JSON.stringify(ids));
      for (const row of bodies.all()) pack.run(PACKED_BODY_MARK, packRequestBody(row.route, row.body), row.id);
      const removed = remove.run().changes;
      const written = restore.run().changes;
      // Throwing rolls the step back: every order deleted must be back under its id.
      if (written !== removed) throw new Error(`packing put back ${written} of the ${removed} orders it rewrote`);
      clear.run();
      return written;
    };
    return this.#rewrite;
  }
}

/** What a packing step reads, through `orders_bodies_to_pack` (a test checks the plan). */
export const BODY_PACKING_READS = {
  candidates: (finishedWhere: string) => `SELECT o.id, o.created_at < @cutoff AS old, ${finishedWhere} AS finished
    FROM orders o INDEXED BY orders_bodies_to_pack
    WHERE o.request_body_packed IS NULL AND o.id > @after ORDER BY o.id LIMIT @limit`,
} as const;
