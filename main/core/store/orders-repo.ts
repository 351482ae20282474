import type { AuditInput } from '../model/audit-entry.js';
import type { OrderClaims, ClaimedOrder } from './order-claims.js';
import type { OrderNotFound } from './order-not-found.js';
import type { OrderFilter, OrderQueries, PharmacyIdHolder, PolledOrder } from './order-queries.js';
import type { ListedDifferently, NotFoundRun, OrderItem, OrderRecord } from './order-records.js';
import type { OrderState } from './order-state.js';
import type { OrderOrigin, OrderSourceText, OrderViews } from './order-views.js';
import type { NewOrder, OrderPatch, OrderWrites, TransitionAudit } from './order-writes.js';

/**
 * `store.orders`: one entry to the orders table for the rest of the app, composed of parts split by job. It holds
 * no statement of its own; each method is its part's (see there):
 * - order-writes.ts: enqueue and transitions (audited; attempts record theirs through it),
 * - order-claims.ts: the submitter's claims of due queued orders,
 * - order-queries.ts: one order, look-ups, filtered pages, the poller's round, counts by state,
 * - order-views.ts: the detail view's read model (origin, source text),
 * - order-not-found.ts: the service's "no such order" answers for a created order, and its flag (migration 026).
 * The types callers need are exported from here too.
 */

export type { ClaimedOrder } from './order-claims.js';
export type { OrderFilter, PharmacyIdHolder, PolledOrder } from './order-queries.js';
export type { ListedDifferently, NotFoundRun, OrderError, OrderItem, OrderRecord } from './order-records.js';
export type { OrderOrigin, OrderSourceText } from './order-views.js';
export { DuplicateOrderError, type NewOrder, type OrderPatch, type TransitionAudit } from './order-writes.js';

export interface OrdersParts {
  writes: OrderWrites;
  claims: OrderClaims;
  queries: OrderQueries;
  views: OrderViews;
  notFound: OrderNotFound;
}

export class OrdersRepo {
  readonly #writes: OrderWrites;
  readonly #claims: OrderClaims;
  readonly #queries: OrderQueries;
  readonly #views: OrderViews;
  readonly #notFound: OrderNotFound;

  constructor(parts: OrdersParts) {
    this.#writes = parts.writes;
    this.#claims = parts.claims;
    this.#queries = parts.queries;
    this.#views = parts.views;
    this.#notFound = parts.notFound;
  }

  /** See OrderWrites.enqueue. */
  enqueue(
    batchId: number,
    orders: readonly NewOrder[],
    audit: Omit<AuditInput, 'environmentId' | 'batchId'> | null = null,
  ): number[] {
    return this.#writes.enqueue(batchId, orders, audit);
  }

  /** See OrderWrites.transition. */
  transition(
    orderId: number,
    from: readonly OrderState[],
    to: OrderState,
    patch: OrderPatch,
    audit: TransitionAudit,
  ): boolean {
    return this.#writes.transition(orderId, from, to, patch, audit);
  }

  /** See OrderNotFound.recordMiss. */
  recordNotFound(orderId: number, at: Date): NotFoundRun | undefined {
    return this.#notFound.recordMiss(orderId, at);
  }

  /** See OrderNotFound.flag. */
  flagNotFound(orderId: number, audit: TransitionAudit): boolean {
    return this.#notFound.flag(orderId, audit);
  }

  /** See OrderNotFound.clear. */
  clearNotFound(orderId: number, audit: TransitionAudit): boolean {
    return this.#notFound.clear(orderId, audit);
  }

  /** See OrderNotFound.noteListed. */
  noteListedDifferently(orderId: number, listed: Omit<ListedDifferently, 'at'>, audit: TransitionAudit): boolean {
    return this.#notFound.noteListed(orderId, listed, audit);
  }

  /** See OrderClaims.claimDue. */
  claimDue(environmentId: string, limit: number): OrderRecord[] {
    return this.#claims.claimDue(environmentId, limit);
  }

  /** See OrderClaims.claimForSending. */
  claimForSending(environmentId: string, limit: number): ClaimedOrder[] {
    return this.#claims.claimForSending(environmentId, limit);
  }

  /** See OrderQueries.get. */
  get(orderId: number): OrderRecord | undefined {
    return this.#queries.get(orderId);
  }

  /** See OrderQueries.items. */
  items(orderId: number): OrderItem[] {
    return this.#queries.items(orderId);
  }

  /** See OrderQueries.findAccepted. */
  findAccepted(environmentId: string, clinicCode: string, clinicOrderId: string): OrderRecord | undefined {
    return this.#queries.findAccepted(environmentId, clinicCode, clinicOrderId);
  }

  /** See OrderQueries.pharmacyIdHolder. */
  pharmacyIdHolder(environmentId: string, pharmacyOrderId: number): PharmacyIdHolder | undefined {
    return this.#queries.pharmacyIdHolder(environmentId, pharmacyOrderId);
  }

  /** See OrderQueries.findByPharmacyOrderId. */
  findByPharmacyOrderId(environmentId: string, pharmacyOrderId: number): OrderRecord | undefined {
    return this.#queries.findByPharmacyOrderId(environmentId, pharmacyOrderId);
  }

  /** See OrderQueries.list. */
  list(filter: OrderFilter = {}): OrderRecord[] {
    return this.#queries.list(filter);
  }

  /** See OrderQueries.polled. */
  polled(environmentId: string, afterId: number, limit: number): PolledOrder[] {
    return this.#queries.polled(environmentId, afterId, limit);
  }

  /** See OrderQueries.countByState. */
  countByState(environmentId?: string): Record<OrderState, number> {
    return this.#queries.countByState(environmentId);
  }

  /** See OrderQueries.countNeedingAttention. */
  countNeedingAttention(environmentId: string): number {
    return this.#queries.countNeedingAttention(environmentId);
  }

  /** See OrderQueries.countNotedOutsideAttention. */
  countNotedOutsideAttention(environmentId: string): number {
    return this.#queries.countNotedOutsideAttention(environmentId);
  }

  /** See OrderQueries.countByStateInBatch. */
  countByStateInBatch(environmentId: string, batchId: number): Record<OrderState, number> {
    return this.#queries.countByStateInBatch(environmentId, batchId);
  }

  /** See OrderViews.origin. */
  origin(orderId: number): OrderOrigin | undefined {
    return this.#views.origin(orderId);
  }

  /** See OrderViews.source. */
  source(orderId: number): OrderSourceText | undefined {
    return this.#views.source(orderId);
  }
}
