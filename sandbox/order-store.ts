import type Database from 'better-sqlite3';
import { join } from 'node:path';
import { openDatabase } from '../main/core/store/open-database.js';
import { ensurePrivateFile, tightenIfPresent } from '../main/core/platform/private-files.js';

/** The sandbox's own SQLite store: clinics it knows and orders exactly as they arrived. */

export type OrderRoute = 'create-with-clinic-v1' | 'create-with-clinic-v2' | 'create-v2' | 'hl7';

export interface StoredOrder {
  pharmacyOrderId: number;
  clinicCode: string;
  clinicOrderId: string;
  status: string;
  route: OrderRoute;
  /** The request body exactly as received. */
  rawBody: string;
  createdAt: string;
  dispatchDate: string | null;
  trackingId: string | null;
  cancelReason: string | null;
}

export interface NewOrder {
  clinicCode: string;
  clinicOrderId: string;
  route: OrderRoute;
  rawBody: string;
  status: string;
  /** Courier code as the v1 text (RMT24…), used for tracking ids; null when the order did not say. */
  courierCode: string | null;
}

/** Raised when (clinicCode, clinicOrderId) already exists: the service's duplicate rule. */
export class DuplicateClinicOrderError extends Error {
  constructor(
    readonly clinicCode: string,
    readonly clinicOrderId: string,
  ) {
    super(`clinicOrderId ${clinicOrderId} already exists for clinic ${clinicCode}`);
    this.name = 'DuplicateClinicOrderError';
  }
}

interface OrderRow {
  pharmacy_order_id: number;
  clinic_code: string;
  clinic_order_id: string;
  status: string;
  route: OrderRoute;
  raw_body: string;
  created_at: string;
  dispatch_date: string | null;
  tracking_id: string | null;
  cancel_reason: string | null;
}

export interface ActiveOrderRow {
  pharmacyOrderId: number;
  status: string;
  statusChangedAt: number;
  courierCode: string | null;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS clinics (
  clinic_code TEXT PRIMARY KEY,
  name TEXT,
  registered_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS orders (
  pharmacy_order_id INTEGER PRIMARY KEY AUTOINCREMENT,
  clinic_code TEXT NOT NULL REFERENCES clinics (clinic_code),
  clinic_order_id TEXT NOT NULL,
  status TEXT NOT NULL,
  route TEXT NOT NULL,
  raw_body TEXT NOT NULL,
  created_at TEXT NOT NULL,
  status_changed_at INTEGER NOT NULL,
  courier_code TEXT,
  dispatch_date TEXT,
  tracking_id TEXT,
  cancel_reason TEXT,
  UNIQUE (clinic_code, clinic_order_id)
);
CREATE INDEX IF NOT EXISTS orders_by_dispatch_date ON orders (dispatch_date);
CREATE INDEX IF NOT EXISTS orders_by_clinic_order_id ON orders (clinic_order_id);
-- The progression's due orders, read every second: without it each tick read every order the sandbox holds.
CREATE INDEX IF NOT EXISTS orders_by_status ON orders (status, status_changed_at);
`;

/** Pharmacy order ids start here, so they look like a live service's rather than 1, 2, 3. */
const FIRST_ORDER_ID = 100_001;

const ORDER_COLUMNS =
  'pharmacy_order_id, clinic_code, clinic_order_id, status, route, raw_body, created_at, dispatch_date, tracking_id, cancel_reason';

function toStoredOrder(row: OrderRow): StoredOrder {
  return {
    pharmacyOrderId: row.pharmacy_order_id,
    clinicCode: row.clinic_code,
    clinicOrderId: row.clinic_order_id,
    status: row.status,
    route: row.route,
    rawBody: row.raw_body,
    createdAt: row.created_at,
    dispatchDate: row.dispatch_date,
    trackingId: row.tracking_id,
    cancelReason: row.cancel_reason,
  };
}

export class OrderStore {
  readonly file: string;
  private readonly db: Database.Database;
  #setStatus: Database.Statement | undefined;

  constructor(dataDir: string, seedClinics: ReadonlyArray<{ clinicCode: string; name: string }> = []) {
    this.file = join(dataDir, 'sandbox-orders.sqlite');
    // 0600 before SQLite opens it (its -wal and -shm files take the database's mode), and tightened if older.
    ensurePrivateFile(this.file);
    this.db = openDatabase(this.file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('foreign_keys = ON');
    this.db.exec(SCHEMA);
    this.db
      .prepare(
        `INSERT OR IGNORE INTO sqlite_sequence (name, seq) SELECT 'orders', ? WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'orders')`,
      )
      .run(FIRST_ORDER_ID - 1);
    for (const clinic of seedClinics) this.registerClinicIfNew(clinic.clinicCode, clinic.name);
    tightenIfPresent(`${this.file}-wal`);
    tightenIfPresent(`${this.file}-shm`);
  }

  hasClinic(clinicCode: string): boolean {
    return this.db.prepare('SELECT 1 FROM clinics WHERE clinic_code = ?').get(clinicCode) !== undefined;
  }

  registerClinicIfNew(clinicCode: string, name: string | null): void {
    this.db
      .prepare('INSERT OR IGNORE INTO clinics (clinic_code, name, registered_at) VALUES (?, ?, ?)')
      .run(clinicCode, name, new Date().toISOString());
  }

  /**
   * Stores an order (registering its clinic first when `registerClinic` is given) in one transaction, so a
   * duplicate leaves no trace. Returns the pharmacy order id.
   */
  insertOrder(order: NewOrder, registerClinic?: { name: string | null }): number {
    const insert = this.db.transaction(() => {
      if (registerClinic) this.registerClinicIfNew(order.clinicCode, registerClinic.name);
      const existing = this.db
        .prepare('SELECT 1 FROM orders WHERE clinic_code = ? AND clinic_order_id = ?')
        .get(order.clinicCode, order.clinicOrderId);
      if (existing) throw new DuplicateClinicOrderError(order.clinicCode, order.clinicOrderId);
      const result = this.db
        .prepare(
          `INSERT INTO orders (clinic_code, clinic_order_id, status, route, raw_body, created_at, status_changed_at, courier_code)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          order.clinicCode,
          order.clinicOrderId,
          order.status,
          order.route,
          order.rawBody,
          new Date().toISOString(),
          Date.now(),
          order.courierCode,
        );
      return Number(result.lastInsertRowid);
    });
    return insert();
  }

  getOrder(pharmacyOrderId: number): StoredOrder | undefined {
    const row = this.db
      .prepare(`SELECT ${ORDER_COLUMNS} FROM orders WHERE pharmacy_order_id = ?`)
      .get(pharmacyOrderId) as OrderRow | undefined;
    return row && toStoredOrder(row);
  }

  findForClinic(clinicCode: string, by: { pharmacyOrderId?: number; clinicOrderId?: string }): StoredOrder[] {
    const clauses = ['clinic_code = ?'];
    const params: Array<string | number> = [clinicCode];
    if (by.pharmacyOrderId !== undefined) {
      clauses.push('pharmacy_order_id = ?');
      params.push(by.pharmacyOrderId);
    }
    if (by.clinicOrderId !== undefined) {
      clauses.push('clinic_order_id = ?');
      params.push(by.clinicOrderId);
    }
    const rows = this.db
      .prepare(`SELECT ${ORDER_COLUMNS} FROM orders WHERE ${clauses.join(' AND ')} ORDER BY pharmacy_order_id`)
      .all(...params) as OrderRow[];
    return rows.map(toStoredOrder);
  }

  /** The newest order with this clinic order id, whichever clinic sent it (the endpoint takes no clinic). */
  findByClinicOrderId(clinicOrderId: string): StoredOrder | undefined {
    const row = this.db
      .prepare(`SELECT ${ORDER_COLUMNS} FROM orders WHERE clinic_order_id = ? ORDER BY pharmacy_order_id DESC LIMIT 1`)
      .get(clinicOrderId) as OrderRow | undefined;
    return row && toStoredOrder(row);
  }

  /** Orders dispatched between two ISO dates, both inclusive. */
  findDispatchedBetween(startDate: string, endDate: string): StoredOrder[] {
    const rows = this.db
      .prepare(
        `SELECT ${ORDER_COLUMNS} FROM orders WHERE dispatch_date BETWEEN ? AND ? ORDER BY dispatch_date, pharmacy_order_id`,
      )
      .all(startDate, endDate) as OrderRow[];
    return rows.map(toStoredOrder);
  }

  listOrders(): StoredOrder[] {
    const rows = this.db.prepare(`SELECT ${ORDER_COLUMNS} FROM orders ORDER BY pharmacy_order_id`).all() as OrderRow[];
    return rows.map(toStoredOrder);
  }

  setStatus(
    pharmacyOrderId: number,
    status: string,
    extra: { dispatchDate?: string; trackingId?: string; cancelReason?: string } = {},
  ): void {
    // Prepared once: a progression step sets hundreds of statuses.
    this.#setStatus ??= this.db.prepare(
      `UPDATE orders SET status = ?, status_changed_at = ?,
         dispatch_date = COALESCE(?, dispatch_date), tracking_id = COALESCE(?, tracking_id), cancel_reason = COALESCE(?, cancel_reason)
       WHERE pharmacy_order_id = ?`,
    );
    this.#setStatus.run(
      status,
      Date.now(),
      extra.dispatchDate ?? null,
      extra.trackingId ?? null,
      extra.cancelReason ?? null,
      pharmacyOrderId,
    );
  }

  /**
   * Orders in one of `statuses` whose status is older than `changedBefore` (epoch ms), lowest id first, at most
   * `limit` (read through orders_by_status: only the due ones are read).
   */
  dueOrders(statuses: readonly string[], changedBefore: number, limit = Number.POSITIVE_INFINITY): ActiveOrderRow[] {
    if (statuses.length === 0 || !(limit > 0)) return [];
    const marks = statuses.map(() => '?').join(', ');
    const bounded = Number.isFinite(limit) ? ` LIMIT ${Math.floor(limit)}` : '';
    return this.db
      .prepare(
        `SELECT pharmacy_order_id AS pharmacyOrderId, status, status_changed_at AS statusChangedAt, courier_code AS courierCode
         FROM orders WHERE status IN (${marks}) AND status_changed_at <= ? ORDER BY pharmacy_order_id${bounded}`,
      )
      .all(...statuses, changedBefore) as ActiveOrderRow[];
  }

  /** How SQLite reads `dueOrders` (for the test that keeps it off a full scan). */
  dueOrdersPlan(statuses: readonly string[]): string[] {
    const marks = statuses.map(() => '?').join(', ');
    return this.db
      .prepare<unknown[], { detail: string }>(
        `EXPLAIN QUERY PLAN SELECT pharmacy_order_id FROM orders WHERE status IN (${marks}) AND status_changed_at <= ?
         ORDER BY pharmacy_order_id LIMIT 1`,
      )
      .all(...statuses, 0)
      .map((row) => row.detail);
  }

  /** Runs `work` in one transaction (a progression tick, a cancel check-and-set). */
  transaction<T>(work: () => T): T {
    return this.db.transaction(work)();
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
