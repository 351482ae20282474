import type Database from 'better-sqlite3';
import type { ServiceErrorKind } from '../../../shared/errors.js';
import type { OrderState } from './order-state.js';
import { isoTime, isoTimeOrNull } from './time.js';

/**
 * The submitter's view of the outbox: which work is due (lookups of orders in doubt, cancel commands), when the
 * next is due, what is still open, and the per-order retry memory of migration 004. State changes themselves go
 * through OrdersRepo.transition (audited); the writes here are bookkeeping that rides in the same transaction as
 * an attempt record, which is audited already.
 */

/** A cancel command waiting to be sent: a `cancel_requested` order with its open `requested` cancellation. */
export interface DueCancel {
  orderId: number;
  cancellationId: number;
  clinicCode: string;
  clinicOrderId: string;
  pharmacyOrderId: number;
  reason: string;
}

/** Work the submitter still has to finish for one environment. */
export interface OpenWork {
  queued: number;
  sending: number;
  inDoubt: number;
  /** Open cancel commands not yet sent. */
  cancels: number;
}

export interface RetryMemory {
  /** A send of this order once went unanswered. */
  wasInDoubt: boolean;
  /** Retryable failures counted towards giving up on it. */
  failures: number;
  /** When a person last released it from held or rejected to be looked up first (ISO), null if never. */
  releasedAt: string | null;
}

interface DueQuery {
  environmentId: string;
  now: string;
  exclude: string;
  limit: number;
}

const OPEN_CANCEL = `EXISTS (SELECT 1 FROM cancellations c WHERE c.order_id = o.id AND c.state = 'requested')`;

export class OutboxQueueRepo {
  readonly #now: () => Date;
  readonly #dueInDoubt: Database.Statement<[DueQuery], { id: number }>;
  readonly #dueCancels: Database.Statement<[DueQuery], DueCancel>;
  readonly #nextDue: Database.Statement<[Omit<DueQuery, 'limit'>], { at: string | null }>;
  readonly #openWork: Database.Statement<[{ environmentId: string }], OpenWork>;
  readonly #memory: Database.Statement<[number], { wasInDoubt: number; failures: number; releasedAt: string | null }>;
  readonly #markWasInDoubt: Database.Statement<[number]>;
  readonly #countFailure: Database.Statement<[number], { failures: number }>;
  readonly #release: Database.Statement<{ id: number; releasedAt: string | null }>;
  readonly #reschedule: Database.Statement;
  readonly #unclaim: Database.Statement<[{ ids: string; now: string }]>;
  readonly #queuedAfterUnclearAnswer: Database.Statement<[{ environmentId: string; limit: number }], { id: number }>;

  constructor(db: Database.Database, now: () => Date) {
    this.#now = now;
    this.#dueInDoubt = db.prepare(`
      SELECT id FROM orders
      WHERE environment_id = @environmentId AND state = 'in_doubt'
        AND (next_attempt_at IS NULL OR next_attempt_at <= @now)
        AND id NOT IN (SELECT value FROM json_each(@exclude))
      ORDER BY coalesce(next_attempt_at, created_at), id
      LIMIT @limit`);
    this.#dueCancels = db.prepare(`
      SELECT o.id AS orderId, c.id AS cancellationId, o.clinic_code AS clinicCode, o.clinic_order_id AS clinicOrderId,
        o.pharmacy_order_id AS pharmacyOrderId, c.reason
      FROM orders o JOIN cancellations c ON c.order_id = o.id AND c.state = 'requested'
      WHERE o.environment_id = @environmentId AND o.state = 'cancel_requested'
        AND (o.next_attempt_at IS NULL OR o.next_attempt_at <= @now)
        AND o.id NOT IN (SELECT value FROM json_each(@exclude))
      ORDER BY coalesce(o.next_attempt_at, c.requested_at), o.id
      LIMIT @limit`);
    // Each open state on its own: one WHERE over several states can use no index on what is open (migration 22's
    // partial indexes, or a range of orders_by_state), and read every order of the environment.
    const earliestIn = (state: string, also = '') => `
      SELECT min(coalesce(next_attempt_at, @now)) AS at FROM orders o
      WHERE environment_id = @environmentId AND state = '${state}'${also}
        AND id NOT IN (SELECT value FROM json_each(@exclude))`;
    this.#nextDue = db.prepare(`
      SELECT min(at) AS at FROM (${earliestIn('queued')} UNION ALL ${earliestIn('in_doubt')}
        UNION ALL ${earliestIn('cancel_requested', ` AND ${OPEN_CANCEL}`)})`);
    // Queued, sending and in doubt from the counts migration 14's triggers keep; open cancels from the
    // cancel_requested orders (orders_by_state), which are few.
    this.#openWork = db.prepare(`
      SELECT
        coalesce((SELECT count FROM order_state_counts WHERE environment_id = @environmentId AND state = 'queued'), 0)
          AS queued,
        coalesce((SELECT count FROM order_state_counts WHERE environment_id = @environmentId AND state = 'sending'), 0)
          AS sending,
        coalesce((SELECT count FROM order_state_counts WHERE environment_id = @environmentId AND state = 'in_doubt'), 0)
          AS inDoubt,
        (SELECT count(*) FROM orders o
          WHERE environment_id = @environmentId AND state = 'cancel_requested' AND ${OPEN_CANCEL}) AS cancels`);
    this.#memory = db.prepare(
      'SELECT was_in_doubt AS wasInDoubt, retry_failures AS failures, released_at AS releasedAt FROM orders WHERE id = ?',
    );
    this.#markWasInDoubt = db.prepare('UPDATE orders SET was_in_doubt = 1 WHERE id = ?');
    this.#countFailure = db.prepare(
      'UPDATE orders SET retry_failures = retry_failures + 1 WHERE id = ? RETURNING retry_failures AS failures',
    );
    this.#release = db.prepare(
      'UPDATE orders SET retry_failures = 0, released_at = coalesce(@releasedAt, released_at) WHERE id = @id',
    );
    this.#reschedule = db.prepare(`
      UPDATE orders SET
        next_attempt_at = @nextAttemptAt,
        last_error_kind = CASE WHEN @setLastError THEN @lastErrorKind ELSE last_error_kind END,
        last_error_message = CASE WHEN @setLastError THEN @lastErrorMessage ELSE last_error_message END,
        last_error_field = CASE WHEN @setLastError THEN @lastErrorField ELSE last_error_field END,
        updated_at = @updatedAt
      WHERE id = @id AND state = @state`);
    this.#unclaim = db.prepare(
      `UPDATE orders SET state = 'queued', updated_at = @now
       WHERE state = 'sending' AND id IN (SELECT value FROM json_each(@ids))`,
    );
    // Orders put back with a retry time (so the claim index reads only those, not a fresh queue of thousands), that
    // failed at least once and are not remembered as once in doubt.
    this.#queuedAfterUnclearAnswer = db.prepare(`
      SELECT o.id FROM orders o
      WHERE o.environment_id = @environmentId AND o.state = 'queued' AND o.next_attempt_at IS NOT NULL
        AND o.was_in_doubt = 0 AND o.last_error_kind IS NOT NULL
        AND EXISTS (
          SELECT 1 FROM attempts a
          WHERE a.order_id = o.id AND a.operation = 'create'
            AND (a.outcome = 'in-doubt' OR (a.outcome = 'retryable' AND (a.http_status >= 500 OR a.http_status = 408))))
      ORDER BY o.id
      LIMIT @limit`);
  }

  /**
   * Queued orders with a create in their history that may have taken effect (a 5xx or 408, which versions before
   * the rule "a 5xx is indeterminate" recorded as retryable and queued again at a backoff) and that are not
   * remembered as once in doubt: start-up recovery has them looked up before they are sent again. Only orders
   * waiting for a retry time are read (those versions always set one after a 5xx; "retry now" clears it, and such an
   * order is then caught by the duplicate rule instead).
   */
  queuedAfterUnclearAnswer(environmentId: string, limit: number): number[] {
    return this.#queuedAfterUnclearAnswer.all({ environmentId, limit }).map((row) => row.id);
  }

  /** Ids of `in_doubt` orders due for a lookup, oldest due first, leaving out those already being worked on. */
  dueInDoubt(environmentId: string, limit: number, exclude: readonly number[] = []): number[] {
    return this.#dueInDoubt.all(this.#query(environmentId, limit, exclude)).map((row) => row.id);
  }

  /** Cancel commands due to be sent, oldest due first, leaving out those already being worked on. */
  dueCancels(environmentId: string, limit: number, exclude: readonly number[] = []): DueCancel[] {
    return this.#dueCancels.all(this.#query(environmentId, limit, exclude));
  }

  /**
   * When the earliest open piece of work (queued, in doubt, cancel command) is due; now if one is due already,
   * null if there is none. `exclude` leaves out work in flight.
   */
  nextDueAt(environmentId: string, exclude: readonly number[] = []): Date | null {
    const { limit: _limit, ...query } = this.#query(environmentId, 1, exclude);
    const { at } = this.#nextDue.get(query) ?? { at: null };
    return at === null ? null : new Date(at);
  }

  openWork(environmentId: string): OpenWork {
    return this.#openWork.get({ environmentId }) ?? { queued: 0, sending: 0, inDoubt: 0, cancels: 0 };
  }

  retryMemory(orderId: number): RetryMemory | undefined {
    const row = this.#memory.get(orderId);
    return row && { wasInDoubt: row.wasInDoubt === 1, failures: row.failures, releasedAt: row.releasedAt };
  }

  markWasInDoubt(orderId: number): void {
    this.#markWasInDoubt.run(orderId);
  }

  /** Counts one more failure towards giving up on the order and returns the new count. */
  countFailure(orderId: number): number {
    return this.#countFailure.get(orderId)?.failures ?? 0;
  }

  /**
   * A person released the order: its failures start again from zero. `releasedAt` (an order released to be looked
   * up first) is where its lookups are counted from, not its last send.
   */
  release(orderId: number, releasedAt: Date | null): void {
    this.#release.run({ id: orderId, releasedAt: releasedAt?.toISOString() ?? null });
  }

  /**
   * Sets when the order is due again (null: now), and optionally its last error, without changing its state and
   * without an audit entry of its own: for work that stays where it is (a lookup or a cancel to retry), whose
   * attempt record is the audited fact. False if the order is no longer in `state`.
   */
  reschedule(
    orderId: number,
    state: OrderState,
    nextAttemptAt: Date | null,
    lastError?: { kind: ServiceErrorKind; message: string; field?: string | null } | null,
  ): boolean {
    return (
      this.#reschedule.run({
        id: orderId,
        state,
        nextAttemptAt: isoTimeOrNull(nextAttemptAt),
        setLastError: lastError === undefined ? 0 : 1,
        lastErrorKind: lastError?.kind ?? null,
        lastErrorMessage: lastError?.message ?? null,
        lastErrorField: lastError?.field ?? null,
        updatedAt: isoTime(this.#now()),
      }).changes === 1
    );
  }

  /**
   * Puts claimed orders that were never sent back to `queued` (claims are not audited, and no attempt was made,
   * so nothing else changes). Only for orders this process claimed and knows it did not send.
   */
  unclaim(orderIds: readonly number[]): number {
    return this.#unclaim.run({ ids: JSON.stringify(orderIds), now: isoTime(this.#now()) }).changes;
  }

  #query(environmentId: string, limit: number, exclude: readonly number[]): DueQuery {
    return { environmentId, now: isoTime(this.#now()), exclude: JSON.stringify(exclude), limit };
  }
}
