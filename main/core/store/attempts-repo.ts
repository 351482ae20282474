import type Database from 'better-sqlite3';
import { scrubCredentials, type AuditDetails } from '../model/audit-details.js';
import type { AuditActor } from '../model/audit-entry.js';
import type { AuditRepo } from './audit-repo.js';
import type { OrderPatch, OrderWrites } from './order-writes.js';
import {
  ATTEMPT_OPERATIONS,
  ATTEMPT_OUTCOMES,
  type AttemptOperation,
  type AttemptOutcome,
  type OrderState,
} from './order-state.js';
import { isoTime } from './time.js';

export interface NewAttempt {
  orderId: number;
  operation: AttemptOperation;
  startedAt: Date;
  /** Null when no answer came at all. */
  latencyMs: number | null;
  httpStatus: number | null;
  outcome: AttemptOutcome;
  errorMessage?: string | null;
  /** What the service called the order (pharmacy order id), when it said. */
  remoteId?: string | null;
  /** Default `submitter`. */
  actor?: AuditActor;
}

export interface AttemptRecord {
  id: number;
  orderId: number;
  operation: AttemptOperation;
  startedAt: string;
  latencyMs: number | null;
  httpStatus: number | null;
  outcome: AttemptOutcome;
  errorMessage: string | null;
  remoteId: string | null;
}

/**
 * The state change an attempt led to (see OrderWrites.transition): audited in one entry with the attempt, under
 * `action`, its details being the attempt's overlaid with `details`.
 */
export interface AttemptTransition {
  from: readonly OrderState[];
  to: OrderState;
  patch: OrderPatch;
  action: string;
  details?: AuditDetails;
}

const COLUMNS = `id, order_id AS orderId, operation, started_at AS startedAt, latency_ms AS latencyMs,
  http_status AS httpStatus, outcome, error_message AS errorMessage, remote_id AS remoteId`;

type OrderIdentity = { environmentId: string; batchId: number; clinicCode: string; clinicOrderId: string };

/**
 * One row per call made about an order, each audited in the same transaction: with the state change it led to
 * in one entry (`recordWithTransition`), else in an `order.attempt` entry of its own.
 */
export class AttemptsRepo {
  readonly #audit: AuditRepo;
  readonly #orders: OrderWrites;
  readonly #order: Database.Statement<[number], OrderIdentity>;
  readonly #insert: Database.Statement;
  readonly #countCreate: Database.Statement<[number], { attempts: number }>;
  readonly #list: Database.Statement<[number], AttemptRecord>;
  readonly #record: Database.Transaction<(attempt: NewAttempt) => AttemptRecord>;
  readonly #recordWithTransition: Database.Transaction<
    (attempt: NewAttempt, next: () => AttemptTransition | null) => boolean
  >;
  readonly #recordWithTransitionNow: (attempt: NewAttempt, next: () => AttemptTransition | null) => boolean;
  readonly #db: Database.Database;

  constructor(db: Database.Database, audit: AuditRepo, orders: OrderWrites) {
    this.#db = db;
    this.#audit = audit;
    this.#orders = orders;
    this.#order = db.prepare(
      `SELECT environment_id AS environmentId, batch_id AS batchId, clinic_code AS clinicCode,
         clinic_order_id AS clinicOrderId FROM orders WHERE id = ?`,
    );
    this.#insert = db.prepare(
      `INSERT INTO attempts (order_id, operation, started_at, latency_ms, http_status, outcome, error_message, remote_id)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.#countCreate = db.prepare('UPDATE orders SET attempts = attempts + 1 WHERE id = ? RETURNING attempts');
    this.#list = db.prepare(`SELECT ${COLUMNS} FROM attempts WHERE order_id = ? ORDER BY id`);
    this.#record = db.transaction((attempt: NewAttempt) => {
      const { record, details } = this.#store(attempt, true);
      this.#auditAlone(attempt, details);
      return record;
    });
    this.#recordWithTransitionNow = (attempt: NewAttempt, next: () => AttemptTransition | null) => {
      const { details } = this.#store(attempt, false);
      const transition = next();
      const isCreate = attempt.operation === 'create';
      // The transition counts a create on the order and puts the new count in the one audit entry.
      const moved =
        transition !== null &&
        this.#orders.transitionForAttempt(
          attempt.orderId,
          transition.from,
          transition.to,
          transition.patch,
          {
            actor: attempt.actor ?? 'submitter',
            action: transition.action,
            details: { ...details, ...transition.details },
          },
          isCreate,
        );
      if (moved) return true;
      // No change, or the order changed meanwhile: the call still happened, is counted, and is audited on its own.
      const count = isCreate ? this.#countCreate.get(attempt.orderId) : undefined;
      this.#auditAlone(attempt, count ? { ...details, attempt: count.attempts } : details);
      return false;
    };
    this.#recordWithTransition = db.transaction(this.#recordWithTransitionNow);
  }

  /** Stores the attempt, counts it on the order when it was a create, and audits it; one transaction. */
  record(attempt: NewAttempt): AttemptRecord {
    return this.#record.immediate(attempt);
  }

  /**
   * Stores the attempt, then makes the state change `next` names (called once the attempt is stored, so the
   * history it may read includes it), with one audit entry for both: the transition's action, the attempt's
   * details overlaid with the transition's, and both states. One transaction. If `next` names none, or the order
   * is no longer in one of its `from`, the attempt is audited alone (`order.attempt`) and this returns false.
   */
  recordWithTransition(attempt: NewAttempt, next: () => AttemptTransition | null): boolean {
    return this.#recordWithTransition.immediate(attempt, next);
  }

  /**
   * `recordWithTransition` for a caller already inside a transaction or savepoint of its own that rolls back if
   * this throws (the submitter's per-answer savepoint): no second savepoint nested in it.
   */
  recordWithTransitionWithin(attempt: NewAttempt, next: () => AttemptTransition | null): boolean {
    if (!this.#db.inTransaction) throw new Error('recordWithTransitionWithin needs a transaction');
    return this.#recordWithTransitionNow(attempt, next);
  }

  list(orderId: number): AttemptRecord[] {
    return this.#list.all(orderId);
  }

  /**
   * Checks and inserts the attempt row; with `count`, also counts a create on the order. Returns the row as
   * stored and its audit details (with the create count when counted here).
   */
  #store(attempt: NewAttempt, count: boolean): { record: AttemptRecord; details: AuditDetails } {
    if (!(ATTEMPT_OPERATIONS as readonly string[]).includes(attempt.operation)) {
      throw new Error(`unknown attempt operation "${attempt.operation}"`);
    }
    if (!(ATTEMPT_OUTCOMES as readonly string[]).includes(attempt.outcome)) {
      throw new Error(`unknown attempt outcome "${attempt.outcome}"`);
    }
    const countsHere = count && attempt.operation === 'create';
    const counted = countsHere ? this.#countCreate.get(attempt.orderId) : undefined;
    if (countsHere && !counted) throw new Error(`no order ${attempt.orderId}`);
    const errorMessage = attempt.errorMessage ? scrubCredentials(attempt.errorMessage).slice(0, 1000) : null;
    const latencyMs = attempt.latencyMs === null ? null : Math.round(attempt.latencyMs);
    const record: AttemptRecord = {
      id: 0,
      orderId: attempt.orderId,
      operation: attempt.operation,
      startedAt: isoTime(attempt.startedAt),
      latencyMs,
      httpStatus: attempt.httpStatus,
      outcome: attempt.outcome,
      errorMessage,
      remoteId: attempt.remoteId ?? null,
    };
    let result: Database.RunResult;
    try {
      result = this.#insert.run(
        record.orderId,
        record.operation,
        record.startedAt,
        record.latencyMs,
        record.httpStatus,
        record.outcome,
        record.errorMessage,
        record.remoteId,
      );
    } catch (error) {
      // The foreign key is the existence check (no read first); its own message names no order.
      if ((error as { code?: unknown }).code === 'SQLITE_CONSTRAINT_FOREIGNKEY') {
        throw new Error(`no order ${attempt.orderId}`, { cause: error });
      }
      throw error;
    }
    record.id = Number(result.lastInsertRowid);
    const details: AuditDetails = {
      operation: attempt.operation,
      outcome: attempt.outcome,
      ...(counted ? { attempt: counted.attempts } : {}),
      ...(attempt.httpStatus !== null ? { httpStatus: attempt.httpStatus } : {}),
      ...(latencyMs !== null ? { latencyMs } : {}),
      ...(attempt.outcome !== 'ok' ? { errorKind: attempt.outcome } : {}),
      ...(errorMessage ? { errorMessage } : {}),
      ...(attempt.remoteId ? { remoteId: attempt.remoteId } : {}),
    };
    return { record, details };
  }

  #auditAlone(attempt: NewAttempt, details: AuditDetails): void {
    const order = this.#order.get(attempt.orderId)!;
    this.#audit.appendWithin({
      actor: attempt.actor ?? 'submitter',
      action: 'order.attempt',
      environmentId: order.environmentId,
      batchId: order.batchId,
      orderId: attempt.orderId,
      clinicCode: order.clinicCode,
      clinicOrderId: order.clinicOrderId,
      details,
    });
  }
}
