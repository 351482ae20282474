import type Database from 'better-sqlite3';
import { ORDER_COLUMNS, requestBodyOf, toRecord, type OrderRecord, type OrderRow } from './order-records.js';
import { isoTime } from './time.js';

/**
 * Claims of queued work (part of `store.orders`), for the submitter: due `queued` orders of one environment moved
 * to `sending` in one statement, earliest due first. The way back is elsewhere: `outboxQueue.unclaim` returns a
 * claimed order never sent to `queued`, and start-up recovery treats one left `sending` by a crash as in doubt.
 */

/**
 * What sending a claimed order needs: which order it is, its route, the body stored for it and, when the store
 * checked that body as it was written, the check's version (`orders.body_checked`; absent or null: not vouched).
 */
export type ClaimedOrder = Pick<
  OrderRecord,
  'id' | 'batchId' | 'environmentId' | 'clinicCode' | 'clinicOrderId' | 'route' | 'requestBody'
> & { bodyChecked?: number | null };

type ClaimParameters = { environmentId: string; now: string };
const CLAIM_FOR_SENDING_RETURNING = `RETURNING id, batch_id AS batchId, environment_id AS environmentId,
  clinic_code AS clinicCode, clinic_order_id AS clinicOrderId, route, request_body AS requestBody,
  request_body_packed AS requestBodyPacked, body_checked AS bodyChecked, coalesce(next_attempt_at, created_at) AS dueAt`;
/** Claim statements kept per kind: the pool's refills use at most its size's worth of limits. */
const MAX_CACHED_CLAIMS = 128;

export class OrderClaims {
  readonly #db: Database.Database;
  readonly #now: () => Date;
  /** The claims by their LIMIT, written into the SQL (see #claimStatement). */
  readonly #claims = new Map<number, Database.Statement<[ClaimParameters], OrderRow>>();
  readonly #claimsForSending = new Map<
    number,
    Database.Statement<[ClaimParameters], ClaimedOrder & { dueAt: string; requestBodyPacked: Uint8Array | null }>
  >();

  constructor(db: Database.Database, now: () => Date) {
    this.#db = db;
    this.#now = now;
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
    // A rejected order retried after retention packed its body is sent exactly as it was first (order-records.ts).
    return claimed.map(({ dueAt: _dueAt, requestBodyPacked, ...order }) =>
      requestBodyPacked === null ? order : { ...order, requestBody: requestBodyOf({ ...order, requestBodyPacked }) },
    );
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
}
