import type Database from 'better-sqlite3';
import { AT_TEXT_SQL } from './migrations/021-compact-audit-log.js';
import { isoTime } from './time.js';

export interface StatusObservation {
  /** The service's status text, kept as sent (unknown texts included). */
  status: string;
  dispatchDate?: string | null;
  trackingId?: string | null;
  observedAt: Date;
}

export interface StatusHistoryRecord {
  id: number;
  orderId: number;
  status: string;
  dispatchDate: string | null;
  trackingId: string | null;
  observedAt: string;
}

interface RemoteFields {
  remoteStatus: string | null;
  dispatchDate: string | null;
  trackingId: string | null;
}

/** What the service said about an order over time; the order row mirrors the latest. */
export class StatusHistoryRepo {
  readonly #now: () => Date;
  readonly #current: Database.Statement<[number], RemoteFields>;
  readonly #insert: Database.Statement;
  readonly #statusId: Database.Statement<[string], number>;
  readonly #addStatus: Database.Statement<[string]>;
  readonly #mirror: Database.Statement;
  readonly #list: Database.Statement<[number], StatusHistoryRecord>;
  readonly #append: Database.Transaction<(orderId: number, observation: StatusObservation) => boolean>;

  constructor(db: Database.Database, now: () => Date) {
    this.#now = now;
    this.#current = db.prepare(
      `SELECT remote_status AS remoteStatus, dispatch_date AS dispatchDate, tracking_id AS trackingId
       FROM orders WHERE id = ?`,
    );
    // Compact rows (migration 23): the next id after the order's last, the status text's number, the time in
    // milliseconds (cast: a JavaScript number would be bound as a real).
    this.#insert = db.prepare(
      `INSERT INTO status_history (order_id, id, status, dispatch_date, tracking_id, observed_at)
       VALUES (@orderId, (SELECT coalesce(max(id), 0) + 1 FROM status_history WHERE order_id = @orderId), @statusId,
         @dispatchDate, @trackingId, CAST(@observedMs AS INTEGER))`,
    );
    this.#statusId = db.prepare<[string], number>('SELECT id FROM remote_statuses WHERE text = ?').pluck();
    this.#addStatus = db.prepare('INSERT INTO remote_statuses (text) VALUES (?)');
    this.#mirror = db.prepare(
      `UPDATE orders SET remote_status = @status, remote_status_at = @observedAt, dispatch_date = @dispatchDate,
         tracking_id = @trackingId, updated_at = @updatedAt
       WHERE id = @orderId`,
    );
    this.#list = db.prepare(
      `SELECT h.id, h.order_id AS orderId, (SELECT text FROM remote_statuses WHERE id = h.status) AS status,
         h.dispatch_date AS dispatchDate, h.tracking_id AS trackingId, ${AT_TEXT_SQL('h.observed_at')} AS observedAt
       FROM status_history h WHERE h.order_id = ? ORDER BY h.id`,
    );
    this.#append = db.transaction((orderId: number, observation: StatusObservation) =>
      this.#appendNow(orderId, observation),
    );
  }

  /**
   * Records an observation if it differs from what the order shows (status, dispatch date or tracking id) and
   * mirrors it onto the order. Returns whether anything changed: polling the same status writes nothing.
   */
  append(orderId: number, observation: StatusObservation): boolean {
    return this.#append.immediate(orderId, observation);
  }

  #appendNow(orderId: number, observation: StatusObservation): boolean {
    const current = this.#current.get(orderId);
    if (!current) throw new Error(`no order ${orderId}`);
    const next = {
      orderId,
      status: observation.status,
      dispatchDate: observation.dispatchDate ?? null,
      trackingId: observation.trackingId ?? null,
      observedAt: isoTime(observation.observedAt),
    };
    if (
      current.remoteStatus === next.status &&
      current.dispatchDate === next.dispatchDate &&
      current.trackingId === next.trackingId
    ) {
      return false;
    }
    const statusId = this.#statusId.get(next.status) ?? Number(this.#addStatus.run(next.status).lastInsertRowid);
    this.#insert.run({ ...next, statusId, observedMs: observation.observedAt.getTime() });
    this.#mirror.run({ ...next, updatedAt: isoTime(this.#now()) });
    return true;
  }

  list(orderId: number): StatusHistoryRecord[] {
    return this.#list.all(orderId);
  }
}
