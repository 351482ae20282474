import type Database from 'better-sqlite3';
import type { ServiceErrorKind } from '../../../shared/errors.js';
import { ORDER_COLUMNS, toRecord, type OrderItem, type OrderRecord, type OrderRow } from './order-records.js';
import { OrderViews, type OrderOrigin, type OrderSourceText } from './order-views.js';
import type { AuditInput } from '../model/audit-entry.js';
import type { AuditRepo } from './audit-repo.js';
import {
  ENQUEUE_STATES,
  ORDER_ROUTES,
  ORDER_STATES,
  type EnqueueState,
  type OrderRoute,
  type OrderState,
} from './order-state.js';
import { surnameSearchKey } from '../../../shared/patient-surname.js';
import { patientSurnameKeyOf } from './request-body-fields.js';
import { isoTime, isoTimeOrNull } from './time.js';
import { STORED_BODY_CHECK_VERSION, storedBodyVouch } from '../model/stored-body-check.js';
import { POLLED_ORDERS_WHERE } from './migrations/014-scale-indexes.js';

export type { OrderError, OrderItem, OrderRecord } from './order-records.js';
export type { OrderOrigin, OrderSourceText } from './order-views.js';

export interface NewOrder {
  clinicCode: string;
  clinicOrderId: string;
  route: OrderRoute;
  /** The exact body that will be sent: wire JSON (dmdCode as number tokens) or the HL7 message. */
  requestBody: string;
  /** The prescribed items, from the parsed order, for search. */
  items: ReadonlyArray<Omit<OrderItem, 'productId'> & { productId?: number | null }>;
  /** Default `queued`. */
  state?: EnqueueState;
  /**
   * Check the body against its route's schema now (`checkStoredBody`) and record in the row that it passed, so
   * the send skips that check (accept asks for it). A body that fails is stored all the same, unvouched: the
   * send-time check then refuses it with its reasons, as without this flag.
   */
  checkBody?: boolean;
  /**
   * The caller has just validated the body's object with its route's schema and written `requestBody` from it
   * with `toWireJson` (accept does, for v1): recorded as passing without reading the text again.
   */
  bodySchemaChecked?: boolean;
}

/**
 * What sending a claimed order needs: which order it is, its route, the body stored for it and, when the store
 * checked that body as it was written, the check's version (`orders.body_checked`; absent or null: not vouched).
 */
export type ClaimedOrder = Pick<
  OrderRecord,
  'id' | 'batchId' | 'environmentId' | 'clinicCode' | 'clinicOrderId' | 'route' | 'requestBody'
> & { bodyChecked?: number | null };

/** What the status poller's round reads of each order it watches (not the body: a round reads thousands). */
export type PolledOrder = Pick<
  OrderRecord,
  'id' | 'state' | 'pharmacyOrderId' | 'remoteStatus' | 'dispatchDate' | 'createdAt'
>;

/** Fields a transition may set alongside the state; a field left out keeps its value, null clears it. */
export interface OrderPatch {
  pharmacyOrderId?: number | null;
  remoteStatus?: string | null;
  remoteStatusAt?: Date | null;
  dispatchDate?: string | null;
  trackingId?: string | null;
  lastError?: { kind: ServiceErrorKind; message: string; field?: string | null } | null;
  nextAttemptAt?: Date | null;
}

/** The audit entry of a transition; the store fills in the order's identifiers and the two states. */
export type TransitionAudit = Pick<AuditInput, 'actor' | 'action' | 'details'>;

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
  /**
   * The patient's surname or its beginning, case and accents ignored (`order_surnames`, migration 009). Patient
   * data: never logged, audited or echoed in an error.
   */
  patientSurname?: string;
  /** Keyset paging, oldest first (the default): orders with a larger id. */
  afterId?: number;
  /** Newest first (the Orders screen): orders with a smaller id than `beforeId` (none: from the newest). */
  newestFirst?: boolean;
  beforeId?: number;
  /** Default 100. */
  limit?: number;
}

/** The order's (environment, clinic, clinicOrderId) is already accepted in the outbox. */
export class DuplicateOrderError extends Error {
  constructor(
    readonly environmentId: string,
    readonly clinicCode: string,
    readonly clinicOrderId: string,
    /** Position in the enqueued list, when the duplicate came from enqueueOrders. */
    readonly index: number | null,
  ) {
    super(`order ${clinicOrderId} of clinic ${clinicCode} is already in the outbox for ${environmentId}`);
    this.name = 'DuplicateOrderError';
  }
}

/** What a transition's UPDATE returns: the order's identifiers for its audit entry, and its create count. */
interface TransitionedRow {
  environmentId: string;
  batchId: number;
  clinicCode: string;
  clinicOrderId: string;
  attempts: number;
}

function isAcceptedDuplicate(error: unknown): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown };
  return (
    code === 'SQLITE_CONSTRAINT_UNIQUE' &&
    typeof message === 'string' &&
    message.includes('orders.environment_id, orders.clinic_code, orders.clinic_order_id')
  );
}

const isOrderState = (state: string): state is OrderState => (ORDER_STATES as readonly string[]).includes(state);

type ClaimParameters = { environmentId: string; now: string };
const CLAIM_FOR_SENDING_RETURNING = `RETURNING id, batch_id AS batchId, environment_id AS environmentId,
  clinic_code AS clinicCode, clinic_order_id AS clinicOrderId, route, request_body AS requestBody,
  body_checked AS bodyChecked, coalesce(next_attempt_at, created_at) AS dueAt`;
/** Claim statements kept per kind: the pool's refills use at most its size's worth of limits. */
const MAX_CACHED_CLAIMS = 128;

/** What a transition's patch can set, each a bit of its statement's shape (see OrdersRepo.#updateFor). */
const PATCH_KEYS: ReadonlyArray<readonly [number, keyof OrderPatch]> = [
  [1, 'pharmacyOrderId'],
  [2, 'remoteStatus'],
  [4, 'remoteStatusAt'],
  [8, 'dispatchDate'],
  [16, 'trackingId'],
  [32, 'lastError'],
  [64, 'nextAttemptAt'],
];
const COUNT_ATTEMPT = 128;
/** Each patch key's SET clause, its parameters in the order #transitionNow binds them. */
const PATCH_SETS: Record<keyof OrderPatch, string> = {
  pharmacyOrderId: 'pharmacy_order_id = ?',
  remoteStatus: 'remote_status = ?',
  remoteStatusAt: 'remote_status_at = ?',
  dispatchDate: 'dispatch_date = ?',
  trackingId: 'tracking_id = ?',
  lastError: 'last_error_kind = ?, last_error_message = ?, last_error_field = ?',
  nextAttemptAt: 'next_attempt_at = ?',
};

export class OrdersRepo {
  readonly #now: () => Date;
  readonly #audit: AuditRepo;
  readonly #batchEnvironment: Database.Statement<[number], { environmentId: string }>;
  readonly #insertOrder: Database.Statement;
  readonly #insertItem: Database.Statement;
  readonly #addToBatch: Database.Statement<[number, number]>;
  readonly #get: Database.Statement<[number], OrderRow>;
  readonly #items: Database.Statement<[number], OrderItem>;
  readonly #db: Database.Database;
  /** The transition's UPDATE, one per shape of patch (which columns it sets), prepared on first use. */
  readonly #updates = new Map<number, Database.Statement<Array<string | number | null>, TransitionedRow>>();
  readonly #state: Database.Statement<[number], { state: OrderState }>;
  /** The claims by their LIMIT, written into the SQL (see #claimStatement). */
  readonly #claims = new Map<number, Database.Statement<[ClaimParameters], OrderRow>>();
  readonly #claimsForSending = new Map<
    number,
    Database.Statement<[ClaimParameters], ClaimedOrder & { dueAt: string }>
  >();
  readonly #findAccepted: Database.Statement<[string, string, string], OrderRow>;
  readonly #findByPharmacyId: Database.Statement<[string, number], OrderRow>;
  /** The list's statements, one per set of filters in use (see #listStatement). */
  readonly #lists = new Map<string, Database.Statement<[Record<string, string | number>], OrderRow>>();
  readonly #polled: Database.Statement<[string, number, number], PolledOrder>;
  readonly #insertSurname: Database.Statement<[number, string]>;
  readonly #views: OrderViews;
  readonly #count: Database.Statement<[{ environmentId: string | null }], { state: OrderState; count: number }>;
  readonly #batchSpan: Database.Statement<[number], { lo: number | null; hi: number | null; count: number }>;
  readonly #countInSpan: Database.Statement<
    [{ environmentId: string; lo: number; hi: number }],
    { state: OrderState; count: number }
  >;
  readonly #countInBatch: Database.Statement<[number], { state: OrderState; count: number }>;
  readonly #enqueue: Database.Transaction<
    (
      batchId: number,
      orders: readonly NewOrder[],
      audit: Omit<AuditInput, 'environmentId' | 'batchId'> | null,
    ) => number[]
  >;
  readonly #transition: Database.Transaction<
    (orderId: number, from: readonly OrderState[], to: OrderState, patch: OrderPatch, audit: TransitionAudit) => boolean
  >;

  constructor(db: Database.Database, now: () => Date, audit: AuditRepo) {
    this.#db = db;
    this.#now = now;
    this.#audit = audit;
    this.#batchEnvironment = db.prepare('SELECT environment_id AS environmentId FROM import_batches WHERE id = ?');
    this.#insertOrder = db.prepare(
      `INSERT INTO orders (batch_id, environment_id, clinic_code, clinic_order_id, route, request_body, state,
         created_at, updated_at, body_checked)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.#insertItem = db.prepare(
      'INSERT INTO order_items (order_id, position, dmd_code, product_id, medication, quantity) VALUES (?, ?, ?, ?, ?, ?)',
    );
    this.#addToBatch = db.prepare('UPDATE import_batches SET order_count = order_count + ? WHERE id = ?');
    this.#get = db.prepare(`SELECT ${ORDER_COLUMNS} FROM orders WHERE id = ?`);
    this.#items = db.prepare(
      `SELECT dmd_code AS dmdCode, product_id AS productId, medication, quantity FROM order_items
       WHERE order_id = ? ORDER BY position`,
    );
    this.#state = db.prepare('SELECT state FROM orders WHERE id = ?');
    this.#findAccepted = db.prepare(
      `SELECT ${ORDER_COLUMNS} FROM orders
       WHERE environment_id = ? AND clinic_code = ? AND clinic_order_id = ? AND state NOT IN ('ready', 'rejected', 'withdrawn')`,
    );
    this.#findByPharmacyId = db.prepare(
      `SELECT ${ORDER_COLUMNS} FROM orders WHERE environment_id = ? AND pharmacy_order_id = ?`,
    );
    this.#polled = db.prepare(
      `SELECT id, state, pharmacy_order_id AS pharmacyOrderId, remote_status AS remoteStatus,
         dispatch_date AS dispatchDate, created_at AS createdAt
       FROM orders WHERE environment_id = ? AND ${POLLED_ORDERS_WHERE} AND id > ? ORDER BY id LIMIT ?`,
    );
    this.#insertSurname = db.prepare('INSERT INTO order_surnames (order_id, surname_key) VALUES (?, ?)');
    this.#views = new OrderViews(db);
    // Kept by migration 14's triggers as states change: a handful of rows, whatever the history.
    this.#count = db.prepare(
      `SELECT state, sum(count) AS count FROM order_state_counts
       WHERE @environmentId IS NULL OR environment_id = @environmentId GROUP BY state`,
    );
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
    this.#enqueue = db.transaction((batchId, orders, audit) => this.#enqueueNow(batchId, orders, audit));
    this.#transition = db.transaction((orderId, from, to, patch, audit) =>
      this.#transitionNow(orderId, from, to, patch, audit),
    );
  }

  /**
   * Inserts a batch's orders (and their items) in one transaction and returns their ids in order. All or
   * nothing: a duplicate of an accepted order throws DuplicateOrderError and leaves no row behind. `audit`, when
   * given, is appended in the same transaction with the batch's identifiers and the order count.
   */
  enqueue(
    batchId: number,
    orders: readonly NewOrder[],
    audit: Omit<AuditInput, 'environmentId' | 'batchId'> | null = null,
  ): number[] {
    return this.#enqueue.immediate(batchId, orders, audit);
  }

  #enqueueNow(
    batchId: number,
    orders: readonly NewOrder[],
    audit: Omit<AuditInput, 'environmentId' | 'batchId'> | null,
  ): number[] {
    const batch = this.#batchEnvironment.get(batchId);
    if (!batch) throw new Error(`no import batch ${batchId}`);
    const now = isoTime(this.#now());
    const ids: number[] = [];
    for (let index = 0; index < orders.length; index += 1) {
      const order = orders[index]!;
      const state = order.state ?? 'queued';
      if (!(ENQUEUE_STATES as readonly string[]).includes(state)) throw new Error(`cannot enqueue in state "${state}"`);
      if (!(ORDER_ROUTES as readonly string[]).includes(order.route)) throw new Error(`unknown route "${order.route}"`);
      let orderId: number;
      try {
        const result = this.#insertOrder.run(
          batchId,
          batch.environmentId,
          order.clinicCode,
          order.clinicOrderId,
          order.route,
          order.requestBody,
          state,
          now,
          now,
          order.bodySchemaChecked === true && order.route === 'v1'
            ? STORED_BODY_CHECK_VERSION
            : order.checkBody === true
              ? storedBodyVouch(order.route, order.requestBody)
              : null,
        );
        orderId = Number(result.lastInsertRowid);
      } catch (error) {
        if (isAcceptedDuplicate(error)) {
          throw new DuplicateOrderError(batch.environmentId, order.clinicCode, order.clinicOrderId, index);
        }
        throw error;
      }
      for (let position = 0; position < order.items.length; position += 1) {
        const item = order.items[position]!;
        this.#insertItem.run(orderId, position, item.dmdCode, item.productId ?? null, item.medication, item.quantity);
      }
      const surnameKey = patientSurnameKeyOf(order.route, order.requestBody);
      if (surnameKey !== null) this.#insertSurname.run(orderId, surnameKey);
      ids.push(orderId);
    }
    this.#addToBatch.run(orders.length, batchId);
    if (audit) {
      this.#audit.append({
        ...audit,
        environmentId: batch.environmentId,
        batchId,
        details: { ...audit.details, orderCount: orders.length },
      });
    }
    return ids;
  }

  /**
   * Compare-and-set: moves the order to `to` only if its state is one of `from`, applying `patch`, and appends
   * `audit` (with the order's identifiers and both states) in the same transaction. Returns false, writing
   * nothing, when the order is missing or its state is not in `from`: the caller's view was stale.
   */
  transition(
    orderId: number,
    from: readonly OrderState[],
    to: OrderState,
    patch: OrderPatch,
    audit: TransitionAudit,
  ): boolean {
    return this.#transition.immediate(orderId, from, to, patch, audit);
  }

  /**
   * For AttemptsRepo, inside its transaction: `transition`, also counting a create attempt on the order when
   * `countAttempt` (its audit entry then carries the new count as `attempt`).
   */
  transitionForAttempt(
    orderId: number,
    from: readonly OrderState[],
    to: OrderState,
    patch: OrderPatch,
    audit: TransitionAudit,
    countAttempt: boolean,
  ): boolean {
    return this.#transitionNow(orderId, from, to, patch, audit, countAttempt);
  }

  #transitionNow(
    orderId: number,
    from: readonly OrderState[],
    to: OrderState,
    patch: OrderPatch,
    audit: TransitionAudit,
    countAttempt = false,
  ): boolean {
    if (!isOrderState(to)) throw new Error(`unknown order state "${String(to)}"`);
    // One possible state: the UPDATE's own WHERE is the compare-and-set (no read first); else read it.
    let expected: OrderState;
    if (from.length === 1) expected = from[0]!;
    else {
      const current = this.#state.get(orderId);
      if (!current || !from.includes(current.state)) return false;
      expected = current.state;
    }
    // Only the columns the patch names are set, bound by position: a generic statement (a CASE and two named
    // parameters per column) cost about 1.5 µs more per transition, plus the parameter object.
    let shape = countAttempt ? COUNT_ATTEMPT : 0;
    const values: Array<string | number | null> = [to];
    for (const [bit, key] of PATCH_KEYS) {
      if (!Object.hasOwn(patch, key) || patch[key] === undefined) continue;
      shape |= bit;
      switch (key) {
        case 'remoteStatusAt':
        case 'nextAttemptAt':
          values.push(isoTimeOrNull(patch[key]));
          break;
        case 'lastError':
          values.push(patch.lastError?.kind ?? null, patch.lastError?.message ?? null, patch.lastError?.field ?? null);
          break;
        default:
          values.push(patch[key] ?? null);
      }
    }
    values.push(isoTime(this.#now()), orderId, expected);
    let moved: TransitionedRow | undefined;
    try {
      moved = this.#updateFor(shape).get(...values);
    } catch (error) {
      const current = isAcceptedDuplicate(error) ? this.#get.get(orderId) : undefined;
      if (current) {
        throw new DuplicateOrderError(current.environmentId, current.clinicCode, current.clinicOrderId, null);
      }
      throw error;
    }
    if (!moved) return false;
    // Inside this transition's transaction (or the caller's): no savepoint of its own needed.
    this.#audit.appendWithin({
      ...audit,
      environmentId: moved.environmentId,
      batchId: moved.batchId,
      orderId,
      clinicCode: moved.clinicCode,
      clinicOrderId: moved.clinicOrderId,
      details: {
        ...audit.details,
        ...(countAttempt ? { attempt: moved.attempts } : {}),
        fromState: expected,
        toState: to,
      },
    });
    return true;
  }

  #updateFor(shape: number): Database.Statement<Array<string | number | null>, TransitionedRow> {
    let statement = this.#updates.get(shape);
    if (!statement) {
      const sets = ['state = ?'];
      for (const [bit, key] of PATCH_KEYS) if (shape & bit) sets.push(PATCH_SETS[key]);
      if (shape & COUNT_ATTEMPT) sets.push('attempts = attempts + 1');
      sets.push('updated_at = ?');
      statement = this.#db.prepare<Array<string | number | null>, TransitionedRow>(
        `UPDATE orders SET ${sets.join(', ')} WHERE id = ? AND state = ?
         RETURNING environment_id AS environmentId, batch_id AS batchId, clinic_code AS clinicCode,
           clinic_order_id AS clinicOrderId, attempts`,
      );
      this.#updates.set(shape, statement);
    }
    return statement;
  }

  /**
   * Atomically moves up to `limit` due `queued` orders of one environment to `sending` and returns them, oldest
   * due first. Not audited: the attempt that follows is, and a crash in between leaves them `sending`, which
   * start-up recovery treats as in doubt.
   */
  claimDue(environmentId: string, limit: number): OrderRecord[] {
    if (!Number.isInteger(limit) || limit < 1) return [];
    const claim = this.#claimStatement(this.#claims, limit, `RETURNING ${ORDER_COLUMNS}`);
    const claimed = claim.all({ environmentId, now: isoTime(this.#now()) }).map(toRecord);
    const dueKey = (order: OrderRecord) => order.nextAttemptAt ?? order.createdAt;
    return claimed.sort((a, b) => (dueKey(a) < dueKey(b) ? -1 : dueKey(a) > dueKey(b) ? 1 : a.id - b.id));
  }

  /** `claimDue` for the submitter: the same claim, returning only what sending needs. */
  claimForSending(environmentId: string, limit: number): ClaimedOrder[] {
    if (!Number.isInteger(limit) || limit < 1) return [];
    // Only what sending needs: the other columns cost more to read than the claim.
    const claim = this.#claimStatement(this.#claimsForSending, limit, CLAIM_FOR_SENDING_RETURNING);
    const claimed = claim.all({ environmentId, now: isoTime(this.#now()) });
    claimed.sort((a, b) => (a.dueAt < b.dueAt ? -1 : a.dueAt > b.dueAt ? 1 : a.id - b.id));
    return claimed.map(({ dueAt: _dueAt, ...order }) => order);
  }

  /**
   * The claim with its LIMIT written into the SQL, prepared once per limit. A bound LIMIT parameter makes SQLite
   * recompile the statement at every execution (its planner may use the value), which cost about 20 µs a claim;
   * the submitter claims a few orders every turn, with a handful of different limits.
   */
  #claimStatement<Row>(
    cache: Map<number, Database.Statement<[ClaimParameters], Row>>,
    limit: number,
    returning: string,
  ): Database.Statement<[ClaimParameters], Row> {
    const literal = Math.min(limit, Number.MAX_SAFE_INTEGER);
    let statement = cache.get(literal);
    if (!statement) {
      // Never-tried orders are due from their creation, so a retry that came due earlier goes first.
      statement = this.#db.prepare<[ClaimParameters], Row>(`
        UPDATE orders SET state = 'sending', updated_at = @now
        WHERE id IN (
          SELECT id FROM orders
          WHERE environment_id = @environmentId AND state = 'queued'
            AND (next_attempt_at IS NULL OR next_attempt_at <= @now)
          ORDER BY coalesce(next_attempt_at, created_at), id
          LIMIT ${literal})
        ${returning}`);
      // Bounded: a caller asking for ever new limits still gets its claims, just not kept.
      if (cache.size < MAX_CACHED_CLAIMS) cache.set(literal, statement);
    }
    return statement;
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

  /**
   * A page of orders, oldest first from `afterId` or newest first before `beforeId`. Each set of filters in use has
   * its own statement, so SQLite picks the index for the filters given (a generic `@x IS NULL OR …` WHERE can use
   * none and scans every order). Several states are read one state at a time, each a range of `orders_by_state`
   * in id order, and merged: at most `limit` rows a state.
   */
  list(filter: OrderFilter = {}): OrderRecord[] {
    const limit = filter.limit ?? 100;
    const newest = filter.newestFirst === true;
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
      filter.clinicCode !== undefined ||
      filter.remoteStatus !== undefined ||
      filter.createdFrom !== undefined ||
      filter.createdTo !== undefined;
    add('environmentId', filter.environmentId, `${paired ? '' : '+'}environment_id = @environmentId`);
    add('batchId', filter.batchId, 'batch_id = @batchId');
    add('state', state, 'state = @state');
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
    if (surname) {
      // A surname drives the query from its index (a key range, then rowid look-ups): the matches are read.
      parameters.surnameFrom = surname.from;
      parameters.surnameTo = surname.to;
      where.push(
        'id IN (SELECT order_id FROM order_surnames WHERE surname_key >= @surnameFrom AND surname_key < @surnameTo)',
      );
    }
    if (newest) add('beforeId', filter.beforeId ?? Number.MAX_SAFE_INTEGER, 'id < @beforeId');
    else add('afterId', filter.afterId ?? 0, 'id > @afterId');
    return this.#listStatement(where.join(' AND '), newest ? 'DESC' : 'ASC').all(parameters);
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

  /** See OrderViews.origin. */
  origin(orderId: number): OrderOrigin | undefined {
    return this.#views.origin(orderId);
  }

  /** See OrderViews.source. */
  source(orderId: number): OrderSourceText | undefined {
    return this.#views.source(orderId);
  }

  /** Orders per state (every state present, zero when none), for one environment or all. */
  countByState(environmentId?: string): Record<OrderState, number> {
    const counts = Object.fromEntries(ORDER_STATES.map((state) => [state, 0])) as Record<OrderState, number>;
    for (const { state, count } of this.#count.all({ environmentId: environmentId ?? null })) counts[state] = count;
    return counts;
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
