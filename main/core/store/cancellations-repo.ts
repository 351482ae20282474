import type Database from 'better-sqlite3';
import type { CancellationState } from './order-state.js';
import { isoTime } from './time.js';

export interface CancellationRecord {
  id: number;
  orderId: number;
  reason: string;
  state: CancellationState;
  requestedAt: string;
  sentAt: string | null;
  resultMessage: string | null;
}

const COLUMNS = `id, order_id AS orderId, reason, state, requested_at AS requestedAt, sent_at AS sentAt,
  result_message AS resultMessage`;

/**
 * Cancel requests and how they ended. The order's own state (cancel_requested, cancel_sent, …) moves through
 * OrdersRepo.transition; callers do both in one `store.inTransaction`.
 */
export class CancellationsRepo {
  readonly #now: () => Date;
  readonly #insert: Database.Statement;
  readonly #markSent: Database.Statement;
  readonly #finish: Database.Statement;
  readonly #get: Database.Statement<[number], CancellationRecord>;
  readonly #open: Database.Statement<[number], CancellationRecord>;
  readonly #list: Database.Statement<[number], CancellationRecord>;

  constructor(db: Database.Database, now: () => Date) {
    this.#now = now;
    this.#insert = db.prepare(
      `INSERT INTO cancellations (order_id, reason, state, requested_at) VALUES (?, ?, 'requested', ?)`,
    );
    this.#markSent = db.prepare(
      `UPDATE cancellations SET state = 'sent', sent_at = ? WHERE id = ? AND state = 'requested'`,
    );
    this.#finish = db.prepare(
      `UPDATE cancellations SET state = @state, result_message = @resultMessage WHERE id = @id AND state = 'sent'`,
    );
    this.#get = db.prepare(`SELECT ${COLUMNS} FROM cancellations WHERE id = ?`);
    this.#open = db.prepare(
      `SELECT ${COLUMNS} FROM cancellations WHERE order_id = ? AND state IN ('requested', 'sent')`,
    );
    this.#list = db.prepare(`SELECT ${COLUMNS} FROM cancellations WHERE order_id = ? ORDER BY id`);
  }

  /** Opens a cancel request; throws if the order already has one open (the schema allows one at a time). */
  request(orderId: number, reason: string): CancellationRecord {
    const result = this.#insert.run(orderId, reason, isoTime(this.#now()));
    const created = this.#get.get(Number(result.lastInsertRowid));
    if (!created) throw new Error('cancellation was not stored');
    return created;
  }

  /** requested → sent; false if it was not in `requested`. */
  markSent(id: number): boolean {
    return this.#markSent.run(isoTime(this.#now()), id).changes === 1;
  }

  /** sent → cancelled | refused, with the service's message; false if it was not in `sent`. */
  finish(id: number, state: 'cancelled' | 'refused', resultMessage: string | null): boolean {
    return this.#finish.run({ id, state, resultMessage }).changes === 1;
  }

  get(id: number): CancellationRecord | undefined {
    return this.#get.get(id);
  }

  open(orderId: number): CancellationRecord | undefined {
    return this.#open.get(orderId);
  }

  list(orderId: number): CancellationRecord[] {
    return this.#list.all(orderId);
  }
}
