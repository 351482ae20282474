import type Database from 'better-sqlite3';
import { surnameSearchKey } from '../../../shared/patient-surname.js';
import { POLLED_ORDERS_WHERE } from './migrations/014-scale-indexes.js';
import { SERVICE_NOTED_WHERE as SERVICE_NOTED } from './migrations/028-service-noted-index.js';
import { ORDER_COLUMNS, toRecord, type OrderItem, type OrderRecord, type OrderRow } from './order-records.js';
import { ATTENTION_STATES, ORDER_STATES, type OrderState } from './order-state.js';

/**
 * Reads of orders (part of `store.orders`): one order and its items, the look-ups reconciliation and tracking make,
 * the Orders screen's filtered pages (surname search included), the status poller's round and counts by state.
 * Reads only: each statement is chosen so SQLite reads through an index (query-plans.test.ts checks them).
 */

/** What the status poller's round reads of each order it watches (not the body: a round reads thousands). */
export type PolledOrder = Pick<
  OrderRecord,
  'id' | 'state' | 'pharmacyOrderId' | 'remoteStatus' | 'dispatchDate' | 'createdAt'
>;

/** What `list` pages by: every filter given must hold. */
/** The order holding a pharmacy order id, as a clash with it is told. */
export interface PharmacyIdHolder {
  id: number;
  clinicCode: string;
  clinicOrderId: string;
}

export interface OrderFilter {
  environmentId?: string;
  batchId?: number;
  states?: readonly OrderState[];
  /** Orders with an item of this dm+d code. */
  dmdCode?: string;
  clinicCode?: string;
  clinicOrderId?: string;
  /** The service's status text, exactly. */
  remoteStatus?: string;
  /** Created (accepted into the app) on or after / on or before these UTC dates, `YYYY-MM-DD`. */
  createdFrom?: string;
  createdTo?: string;
  /** Instants as the store writes them (`Date#toISOString`): created at or after / before. */
  createdAtFrom?: string;
  createdAtBefore?: string;
  /**
   * The patient's surname or its beginning, case and accents ignored (`order_surnames`, migration 009). Patient
   * data: never logged, audited or echoed in an error.
   */
  patientSurname?: string;
  /**
   * Only orders whose lookups a person must look at, whatever their state: flagged as not found at the service
   * (migration 026) or listed there under other ids (027).
   */
  serviceNoted?: boolean;
  /**
   * The orders a person must look at: in ATTENTION_STATES, or `serviceNoted`. Not with `states` (it is a set of
   * states of its own) nor `serviceNoted`.
   */
  needsAttention?: boolean;
  /** Keyset paging, oldest first (the default): orders with a larger id. */
  afterId?: number;
  /** Newest first (the Orders screen): orders with a smaller id than `beforeId` (none: from the newest). */
  newestFirst?: boolean;
  beforeId?: number;
  /** Default 100. */
  limit?: number;
}

export class OrderQueries {
  readonly #db: Database.Database;
  readonly #get: Database.Statement<[number], OrderRow>;
  readonly #items: Database.Statement<[number], OrderItem>;
  readonly #findAccepted: Database.Statement<[string, string, string], OrderRow>;
  readonly #findByPharmacyId: Database.Statement<[string, number], OrderRow>;
  readonly #pharmacyIdHolder: Database.Statement<[string, number], PharmacyIdHolder>;
  /** The list's statements, one per set of filters in use (see #listStatement). */
  readonly #lists = new Map<string, Database.Statement<[Record<string, string | number>], OrderRow>>();
  readonly #polled: Database.Statement<[string, number, number], PolledOrder>;
  readonly #count: Database.Statement<[{ environmentId: string | null }], { state: OrderState; count: number }>;
  readonly #notedOutsideAttention: Database.Statement<[string], number>;
  readonly #surnameMatches: Database.Statement<[string, string, number], number>;
  readonly #batchSpan: Database.Statement<[number], { lo: number | null; hi: number | null; count: number }>;
  readonly #countInSpan: Database.Statement<
    [{ environmentId: string; lo: number; hi: number }],
    { state: OrderState; count: number }
  >;
  readonly #countInBatch: Database.Statement<[number], { state: OrderState; count: number }>;

  constructor(db: Database.Database) {
    this.#db = db;
    this.#surnameMatches = db
      .prepare<[string, string, number], number>(
        'SELECT count(*) FROM (SELECT 1 FROM order_surnames WHERE surname_key >= ? AND surname_key < ? LIMIT ?)',
      )
      .pluck();
    this.#get = db.prepare(`SELECT ${ORDER_COLUMNS} FROM orders WHERE id = ?`);
    this.#items = db.prepare(
      `SELECT dmd_code AS dmdCode, product_id AS productId, medication, quantity FROM order_items
       WHERE order_id = ? ORDER BY position`,
    );
    this.#findAccepted = db.prepare(
      `SELECT ${ORDER_COLUMNS} FROM orders
       WHERE environment_id = ? AND clinic_code = ? AND clinic_order_id = ? AND state NOT IN ('ready', 'rejected', 'withdrawn')`,
    );
    this.#findByPharmacyId = db.prepare(
      `SELECT ${ORDER_COLUMNS} FROM orders WHERE environment_id = ? AND pharmacy_order_id = ?`,
    );
    this.#pharmacyIdHolder = db.prepare(
      `SELECT id, clinic_code AS clinicCode, clinic_order_id AS clinicOrderId FROM orders
       WHERE environment_id = ? AND pharmacy_order_id = ?`,
    );
    this.#polled = db.prepare(
      `SELECT id, state, pharmacy_order_id AS pharmacyOrderId, remote_status AS remoteStatus,
         dispatch_date AS dispatchDate, created_at AS createdAt
       FROM orders WHERE environment_id = ? AND ${POLLED_ORDERS_WHERE} AND id > ? ORDER BY id LIMIT ?`,
    );
    // Kept by migration 14's triggers as states change: a handful of rows, whatever the history.
    this.#count = db.prepare(
      `SELECT state, sum(count) AS count FROM order_state_counts
       WHERE @environmentId IS NULL OR environment_id = @environmentId GROUP BY state`,
    );
    // Through migration 28's index of noted orders alone; those in an attention state are counted by state already.
    this.#notedOutsideAttention = db
      .prepare<[string], number>(
        `SELECT count(*) FROM orders
         WHERE environment_id = ? AND ${SERVICE_NOTED}
           AND state NOT IN (${ATTENTION_STATES.map((state) => `'${state}'`).join(', ')})`,
      )
      .pluck();
    // A batch's orders per state without reading its rows: its id span from orders_by_batch (index only), then
    // each state's count inside the span from orders_by_state (index only). Exact when nothing else lies in the
    // span (its size is the batch's count: an accept is one transaction, so a batch accepted at once is one span);
    // otherwise the batch's rows are read (a batch accepted in parts while others were: rare, and slower).
    this.#batchSpan = db.prepare(
      `SELECT min(id) AS lo, max(id) AS hi, count(*) AS count FROM orders INDEXED BY orders_by_batch WHERE batch_id = ?`,
    );
    this.#countInSpan = db.prepare(
      `SELECT s.value AS state,
         (SELECT count(*) FROM orders INDEXED BY orders_by_state
          WHERE environment_id = @environmentId AND state = s.value AND id BETWEEN @lo AND @hi) AS count
       FROM json_each('${JSON.stringify(ORDER_STATES)}') s`,
    );
    this.#countInBatch = db.prepare(`SELECT state, count(*) AS count FROM orders WHERE batch_id = ? GROUP BY state`);
  }

  get(orderId: number): OrderRecord | undefined {
    const row = this.#get.get(orderId);
    return row && toRecord(row);
  }

  items(orderId: number): OrderItem[] {
    return this.#items.all(orderId);
  }

  /** The accepted order with this clinic order id, if any (what reconciliation and duplicate checks look up). */
  findAccepted(environmentId: string, clinicCode: string, clinicOrderId: string): OrderRecord | undefined {
    const row = this.#findAccepted.get(environmentId, clinicCode, clinicOrderId);
    return row && toRecord(row);
  }

  findByPharmacyOrderId(environmentId: string, pharmacyOrderId: number): OrderRecord | undefined {
    const row = this.#findByPharmacyId.get(environmentId, pharmacyOrderId);
    return row && toRecord(row);
  }

  /** Which order already has this pharmacy order id here (one at most: a unique index), found by that index. */
  pharmacyIdHolder(environmentId: string, pharmacyOrderId: number): PharmacyIdHolder | undefined {
    return this.#pharmacyIdHolder.get(environmentId, pharmacyOrderId);
  }

  /**
   * A page of orders, oldest first from `afterId` or newest first before `beforeId`. Each set of filters in use has
   * its own statement, so SQLite picks the index for the filters given (a generic `@x IS NULL OR …` WHERE can use
   * none and scans every order). Several states are read one state at a time, each a range of `orders_by_state`
   * in id order, and merged: at most `limit` rows a state.
   */
  list(filter: OrderFilter = {}): OrderRecord[] {
    const limit = filter.limit ?? 100;
    const newest = filter.newestFirst === true;
    if (filter.needsAttention) return this.#needingAttention(filter, limit, newest);
    let surname: { from: string; to: string } | null = null;
    if (filter.patientSurname !== undefined) {
      const prefix = surnameSearchKey(filter.patientSurname);
      // An empty key would be every order's prefix: a filter that says nothing finds nothing.
      if (prefix === '') return [];
      // Exact or prefix: every key from the prefix up to the prefix followed by the highest code point.
      surname = { from: prefix, to: `${prefix}\u{10FFFF}` };
    }
    const states = filter.states === undefined ? null : [...new Set(filter.states)];
    if (states !== null && states.length === 0) return [];
    if (states === null || states.length === 1) {
      return this.#listPage(filter, states?.[0] ?? null, surname, newest, limit).map(toRecord);
    }
    const rows = states.flatMap((state) => this.#listPage(filter, state, surname, newest, limit));
    rows.sort((a, b) => (newest ? b.id - a.id : a.id - b.id));
    return rows.slice(0, limit).map(toRecord);
  }

  /** The attention states' pages and the noted orders' page, merged: an order both is listed once. */
  #needingAttention(filter: OrderFilter, limit: number, newest: boolean): OrderRecord[] {
    if (filter.states !== undefined || filter.serviceNoted !== undefined) {
      throw new RangeError('needsAttention is a set of orders of its own: give it without states or serviceNoted');
    }
    const rest = { ...filter, needsAttention: false };
    const byId = new Map<number, OrderRecord>();
    for (const order of [
      ...this.list({ ...rest, states: ATTENTION_STATES }),
      ...this.list({ ...rest, serviceNoted: true }),
    ])
      byId.set(order.id, order);
    return [...byId.values()].sort((a, b) => (newest ? b.id - a.id : a.id - b.id)).slice(0, limit);
  }

  #listPage(
    filter: OrderFilter,
    state: OrderState | null,
    surname: { from: string; to: string } | null,
    newest: boolean,
    limit: number,
  ): OrderRow[] {
    const where: string[] = [];
    const parameters: Record<string, string | number> = { limit };
    const add = (name: string, value: string | number | undefined | null, clause: string) => {
      if (value === undefined || value === null) return;
      parameters[name] = value;
      where.push(clause);
    };
    // The environment narrows through an index only together with the filter the index is for (state, clinic,
    // remote status, dates: each index leads with the environment). Alone, or with a filter that has an index of its
    // own, it is a plain test (`+environment_id`), so the page is read in id order instead of every order of the
    // environment being sorted by id.
    const paired =
      state !== null ||
      filter.serviceNoted === true ||
      filter.clinicCode !== undefined ||
      filter.remoteStatus !== undefined ||
      filter.createdFrom !== undefined ||
      filter.createdTo !== undefined ||
      filter.createdAtFrom !== undefined ||
      filter.createdAtBefore !== undefined;
    add('environmentId', filter.environmentId, `${paired ? '' : '+'}environment_id = @environmentId`);
    add('batchId', filter.batchId, 'batch_id = @batchId');
    add('state', state, 'state = @state');
    if (filter.serviceNoted) where.push(SERVICE_NOTED);
    add('dmdCode', filter.dmdCode, 'id IN (SELECT order_id FROM order_items WHERE dmd_code = @dmdCode)');
    add('clinicCode', filter.clinicCode, 'clinic_code = @clinicCode');
    add('clinicOrderId', filter.clinicOrderId, 'clinic_order_id = @clinicOrderId');
    add('remoteStatus', filter.remoteStatus, 'remote_status = @remoteStatus');
    // Dates are `YYYY-MM-DD`, times ISO texts: on or after the day's start, before the end of the last day.
    add('createdFrom', filter.createdFrom, 'created_at >= @createdFrom');
    add(
      'createdBefore',
      filter.createdTo === undefined ? undefined : `${filter.createdTo}\u{10FFFF}`,
      'created_at < @createdBefore',
    );
    add('createdAtFrom', filter.createdAtFrom, 'created_at >= @createdAtFrom');
    add('createdAtBefore', filter.createdAtBefore, 'created_at < @createdAtBefore');
    if (surname) {
      parameters.surnameFrom = surname.from;
      parameters.surnameTo = surname.to;
      where.push(
        where.length === (filter.environmentId === undefined ? 0 : 1) && this.#commonSurname(filter, surname, limit)
          ? // Shared by many (Patel, Smith; `pat`): the orders read newest first, each looked up in order_surnames by
            // its id, until the page is full.
            'EXISTS (SELECT 1 FROM order_surnames s WHERE s.order_id = orders.id AND s.surname_key >= @surnameFrom AND s.surname_key < @surnameTo)'
          : // A surname drives the query from its index (a key range, then rowid look-ups): the matches are read.
            'id IN (SELECT order_id FROM order_surnames WHERE surname_key >= @surnameFrom AND surname_key < @surnameTo)',
      );
    }
    if (newest) add('beforeId', filter.beforeId ?? Number.MAX_SAFE_INTEGER, 'id < @beforeId');
    else add('afterId', filter.afterId ?? 0, 'id > @afterId');
    return this.#listStatement(where.join(' AND '), newest ? 'DESC' : 'ASC').all(parameters);
  }

  /**
   * Whether reading the environment's orders newest first until `limit` match costs less than reading every match:
   * with M matches among N orders the first reads about limit × N / M rows, the second M, so the matches are
   * counted up to √(limit × N) (a bounded read of the key index), and both ways cost at most about that.
   */
  #commonSurname(filter: OrderFilter, surname: { from: string; to: string }, limit: number): boolean {
    const total = Object.values(this.countByState(filter.environmentId)).reduce((sum, n) => sum + n, 0);
    const cap = Math.ceil(Math.sqrt(limit * total));
    return cap > 0 && this.#surnameMatches.get(surname.from, surname.to, cap)! >= cap;
  }

  /**
   * The page's ids first, then its rows: where the ids must be sorted (a date range is read in time order), the
   * sort holds ids, not whole orders.
   */
  #listStatement(
    where: string,
    order: 'ASC' | 'DESC',
  ): Database.Statement<[Record<string, string | number>], OrderRow> {
    const key = `${where} ${order}`;
    let statement = this.#lists.get(key);
    if (!statement) {
      statement = this.#db.prepare(`
        SELECT ${ORDER_COLUMNS} FROM orders
        WHERE id IN (SELECT id FROM orders WHERE ${where} ORDER BY id ${order} LIMIT @limit)
        ORDER BY id ${order}`);
      this.#lists.set(key, statement);
    }
    return statement;
  }

  /**
   * The orders the status poller watches (`orders_polled`, migration 14), oldest first after `afterId`: read
   * through their own index, so a round costs what is tracked, not the history.
   */
  polled(environmentId: string, afterId: number, limit: number): PolledOrder[] {
    return this.#polled.all(environmentId, afterId, limit);
  }

  /** Orders per state (every state present, zero when none), for one environment or all. */
  countByState(environmentId?: string): Record<OrderState, number> {
    const counts = Object.fromEntries(ORDER_STATES.map((state) => [state, 0])) as Record<OrderState, number>;
    for (const { state, count } of this.#count.all({ environmentId: environmentId ?? null })) counts[state] = count;
    return counts;
  }

  /** The environment's orders a person must look at (see OrderFilter.needsAttention). */
  countNeedingAttention(environmentId: string): number {
    const counts = this.countByState(environmentId);
    const inStates = ATTENTION_STATES.reduce((sum, state) => sum + counts[state], 0);
    return inStates + this.countNotedOutsideAttention(environmentId);
  }

  /** The environment's orders outside the attention states whose lookups need a person (`serviceNoted`). */
  countNotedOutsideAttention(environmentId: string): number {
    return this.#notedOutsideAttention.get(environmentId)!;
  }

  /** One batch's orders per state (every state present), for its own progress line. */
  countByStateInBatch(environmentId: string, batchId: number): Record<OrderState, number> {
    const counts = Object.fromEntries(ORDER_STATES.map((state) => [state, 0])) as Record<OrderState, number>;
    const span = this.#batchSpan.get(batchId);
    if (!span || span.lo === null || span.hi === null) return counts;
    const rows =
      span.hi - span.lo + 1 === span.count
        ? this.#countInSpan.all({ environmentId, lo: span.lo, hi: span.hi })
        : this.#countInBatch.all(batchId);
    for (const { state, count } of rows) counts[state] = count;
    return counts;
  }
}
