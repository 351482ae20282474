import type Database from 'better-sqlite3';
import type { ServiceErrorKind } from '../../../shared/errors.js';
import { ORDER_COLUMNS, type OrderItem, type OrderRow } from './order-records.js';
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
import { patientSurnameKeyOf, surnameIn, surnameKeyOf } from './request-body-fields.js';
import { isoTime, isoTimeOrNull } from './time.js';
import { STORED_BODY_CHECK_VERSION, storedBodyVouch } from '../model/stored-body-check.js';

/**
 * Writes of orders (part of `store.orders`), each in one transaction with its audit entry: enqueue (a batch's
 * orders with their items and surname keys) and transitions (compare-and-set of the state, with a patch).
 * AttemptsRepo records an attempt with the state change it led to through `transitionForAttempt`, inside its own
 * transaction. Claims of queued orders are in order-claims.ts.
 */

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
  /**
   * The object a v1 or v2 `requestBody` was written from with `toWireJson` (accept passes it): the patient's surname
   * for search is read from it, not from the text parsed again.
   */
  writtenFrom?: unknown;
}

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

/** What a transition's patch can set, each a bit of its statement's shape (see OrderWrites.#updateFor). */
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

export class OrderWrites {
  readonly #now: () => Date;
  readonly #audit: AuditRepo;
  readonly #batchEnvironment: Database.Statement<[number], { environmentId: string }>;
  readonly #insertOrder: Database.Statement;
  readonly #insertItem: Database.Statement;
  readonly #addToBatch: Database.Statement<[number, number]>;
  /** For the duplicate error of a transition (its UPDATE hit the accepted-order unique index). */
  readonly #get: Database.Statement<[number], OrderRow>;
  readonly #db: Database.Database;
  /** The transition's UPDATE, one per shape of patch (which columns it sets), prepared on first use. */
  readonly #updates = new Map<number, Database.Statement<Array<string | number | null>, TransitionedRow>>();
  readonly #state: Database.Statement<[number], { state: OrderState }>;
  readonly #insertSurname: Database.Statement<[number, string]>;
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
    this.#state = db.prepare('SELECT state FROM orders WHERE id = ?');
    this.#insertSurname = db.prepare('INSERT INTO order_surnames (order_id, surname_key) VALUES (?, ?)');
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
      const surnameKey =
        order.writtenFrom !== undefined && order.route !== 'hl7'
          ? surnameKeyOf(surnameIn(order.writtenFrom))
          : patientSurnameKeyOf(order.route, order.requestBody);
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
}
