import type Database from 'better-sqlite3';
import { scrubCredentials } from '../audit/audit-details.js';
import type { AuditActor } from '../audit/audit-entry.js';
import type { AuditRepo } from './audit-repo.js';
import { ATTEMPT_OPERATIONS, ATTEMPT_OUTCOMES, type AttemptOperation, type AttemptOutcome } from './order-state.js';
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

const COLUMNS = `id, order_id AS orderId, operation, started_at AS startedAt, latency_ms AS latencyMs,
  http_status AS httpStatus, outcome, error_message AS errorMessage, remote_id AS remoteId`;

/** One row per call made about an order, each with its `order.attempt` audit entry in the same transaction. */
export class AttemptsRepo {
  readonly #audit: AuditRepo;
  readonly #order: Database.Statement<
    [number],
    { environmentId: string; batchId: number; clinicCode: string; clinicOrderId: string; attempts: number }
  >;
  readonly #insert: Database.Statement;
  readonly #countCreate: Database.Statement<[number]>;
  readonly #get: Database.Statement<[number], AttemptRecord>;
  readonly #list: Database.Statement<[number], AttemptRecord>;
  readonly #record: Database.Transaction<(attempt: NewAttempt) => AttemptRecord>;

  constructor(db: Database.Database, audit: AuditRepo) {
    this.#audit = audit;
    this.#order = db.prepare(
      `SELECT environment_id AS environmentId, batch_id AS batchId, clinic_code AS clinicCode,
         clinic_order_id AS clinicOrderId, attempts FROM orders WHERE id = ?`,
    );
    this.#insert = db.prepare(
      `INSERT INTO attempts (order_id, operation, started_at, latency_ms, http_status, outcome, error_message, remote_id)
       VALUES (@orderId, @operation, @startedAt, @latencyMs, @httpStatus, @outcome, @errorMessage, @remoteId)`,
    );
    this.#countCreate = db.prepare('UPDATE orders SET attempts = attempts + 1 WHERE id = ?');
    this.#get = db.prepare(`SELECT ${COLUMNS} FROM attempts WHERE id = ?`);
    this.#list = db.prepare(`SELECT ${COLUMNS} FROM attempts WHERE order_id = ? ORDER BY id`);
    this.#record = db.transaction((attempt: NewAttempt) => this.#recordNow(attempt));
  }

  /** Stores the attempt, counts it on the order when it was a create, and audits it; one transaction. */
  record(attempt: NewAttempt): AttemptRecord {
    return this.#record.immediate(attempt);
  }

  #recordNow(attempt: NewAttempt): AttemptRecord {
    if (!(ATTEMPT_OPERATIONS as readonly string[]).includes(attempt.operation)) {
      throw new Error(`unknown attempt operation "${attempt.operation}"`);
    }
    if (!(ATTEMPT_OUTCOMES as readonly string[]).includes(attempt.outcome)) {
      throw new Error(`unknown attempt outcome "${attempt.outcome}"`);
    }
    const order = this.#order.get(attempt.orderId);
    if (!order) throw new Error(`no order ${attempt.orderId}`);
    const errorMessage = attempt.errorMessage ? scrubCredentials(attempt.errorMessage).slice(0, 1000) : null;
    const latencyMs = attempt.latencyMs === null ? null : Math.round(attempt.latencyMs);
    const result = this.#insert.run({
      orderId: attempt.orderId,
      operation: attempt.operation,
      startedAt: isoTime(attempt.startedAt),
      latencyMs,
      httpStatus: attempt.httpStatus,
      outcome: attempt.outcome,
      errorMessage,
      remoteId: attempt.remoteId ?? null,
    });
    const isCreate = attempt.operation === 'create';
    if (isCreate) this.#countCreate.run(attempt.orderId);
    this.#audit.append({
      actor: attempt.actor ?? 'submitter',
      action: 'order.attempt',
      environmentId: order.environmentId,
      batchId: order.batchId,
      orderId: attempt.orderId,
      clinicCode: order.clinicCode,
      clinicOrderId: order.clinicOrderId,
      details: {
        operation: attempt.operation,
        outcome: attempt.outcome,
        ...(isCreate ? { attempt: order.attempts + 1 } : {}),
        ...(attempt.httpStatus !== null ? { httpStatus: attempt.httpStatus } : {}),
        ...(latencyMs !== null ? { latencyMs } : {}),
        ...(attempt.outcome !== 'ok' ? { errorKind: attempt.outcome } : {}),
        ...(errorMessage ? { errorMessage } : {}),
        ...(attempt.remoteId ? { remoteId: attempt.remoteId } : {}),
      },
    });
    const stored = this.#get.get(Number(result.lastInsertRowid));
    if (!stored) throw new Error('attempt was not stored');
    return stored;
  }

  list(orderId: number): AttemptRecord[] {
    return this.#list.all(orderId);
  }
}
