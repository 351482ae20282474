import { toWireJson } from '../../../../shared/wire-json.js';
import type { CreateWithClinicV1Input } from '../../../../shared/orders.js';
import type { StatusRecord } from '../../../../shared/status.js';
import { sampleCreateWithClinic } from '../../../../test/support/orders.js';
import { applyStatusRecord } from '../../tracking/apply-status.js';
import type { NewOrder } from '../orders-repo.js';
import type { Store } from '../store.js';

/**
 * A store shaped like a busy year (issue #16), built through the app's own store APIs: batches accepted with
 * their audit entry, orders claimed and created (attempt, state change and audit entry together), statuses applied
 * as the poller applies them (history row, mirror on the order, audit entry), rejections, cancels, orders in doubt,
 * held and queued. About 5 audit entries an order. Each batch is one transaction (as a day's work would be many):
 * the clock moves through the days.
 *
 * The newest `trackedShare` of the orders are still watched by the poller (created, received or being prepared);
 * the rest of the created ones are processed, a few dispatched and waiting for "processed".
 */

export interface ScaleShape {
  orders: number;
  /** Orders a batch (default 1,000: five batches a day at 5,000 orders a day). */
  batchSize?: number;
  ordersPerDay?: number;
  /** Share of the newest orders the poller still watches (default 0.1). */
  trackedShare?: number;
  environmentId: string;
  /** Called after each batch with the orders built so far. */
  onBatch?: (built: number) => void;
}

const SURNAMES = ['Smith', 'Jones', 'Taylor', 'Brown', 'Williams', 'Wilson', 'Johnson', 'Davies', 'Patel', 'Wright'];
const CLINICS = ['CLINIC-A', 'CLINIC-B', 'CLINIC-C', 'CLINIC-D'];

/** Deterministic pseudo-random numbers (mulberry32). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The body of the scale store's order `index` (draws two numbers from `random`). */
export function scaleOrderBody(index: number, random: () => number): CreateWithClinicV1Input {
  const clinicCode = CLINICS[index % CLINICS.length]!;
  const surname = `${SURNAMES[Math.floor(random() * SURNAMES.length)]!}${Math.floor(random() * 500)}`;
  return sampleCreateWithClinic({
    clinicCode,
    clinicOrderId: `CO-${String(index).padStart(8, '0')}`,
    surname,
  });
}

function scaleOrder(index: number, random: () => number): NewOrder {
  const body = scaleOrderBody(index, random);
  return {
    clinicCode: body.clinicInformation.clinicCode,
    clinicOrderId: body.prescription.clinicOrderId,
    route: 'v1',
    requestBody: toWireJson(body),
    items: body.prescribedItems.map((item) => ({
      dmdCode: String(item.dmdCode),
      productId: item.productId ?? null,
      medication: item.medication,
      quantity: item.quantity,
    })),
  };
}

/**
 * Fills `store` (which has `environmentId` configured and a clock the caller moves with `advance`) with
 * `shape.orders` orders. Returns the number of orders built.
 */
export function buildScaleStore(store: Store, shape: ScaleShape, clock: { advance(ms: number): void }): number {
  const plan = scalePlan(shape);
  let built = 0;
  while (built < shape.orders) {
    const count = Math.min(plan.batchSize, shape.orders - built);
    const first = built;
    store.inTransaction(() => {
      const batch = store.batches.create({
        environmentId: shape.environmentId,
        sourceFileName: `orders-${first}.csv`,
        kind: 'csv',
        rowCount: count,
        invalidCount: 0,
      });
      const orders = Array.from({ length: count }, (_, i) => scaleOrder(first + i, plan.random));
      const ids = store.orders.enqueue(batch.id, orders, {
        actor: 'user',
        action: 'batch.accepted',
        details: {},
      });
      settleScaleBatch(store, shape, plan, ids, first);
    });
    built += count;
    clock.advance(plan.batchMs);
    shape.onBatch?.(built);
  }
  return built;
}

export interface ScalePlan {
  batchSize: number;
  /** The clock's step after each batch. */
  batchMs: number;
  /** The first order (by index) the poller still watches. */
  trackedFrom: number;
  random: () => number;
}

export function scalePlan(shape: ScaleShape): ScalePlan {
  const batchSize = shape.batchSize ?? 1000;
  return {
    batchSize,
    batchMs: (86_400_000 * batchSize) / (shape.ordersPerDay ?? 5000),
    trackedFrom: Math.floor(shape.orders * (1 - (shape.trackedShare ?? 0.1))),
    random: seededRandom(16),
  };
}

/**
 * What happens to a batch's queued orders `ids` (the orders `first`, `first + 1`…): sent and tracked as the
 * shape says, in the caller's transaction. The last batch of the store stays queued (the outbox's work at hand),
 * a few held.
 */
export function settleScaleBatch(store: Store, shape: ScaleShape, plan: ScalePlan, ids: number[], first: number): void {
  const { random, trackedFrom } = plan;
  const count = ids.length;
  if (first + count === shape.orders) {
    ids
      .slice(0, Math.min(20, ids.length))
      .forEach((id) =>
        store.orders.transition(id, ['queued'], 'held', {}, { actor: 'user', action: 'order.held', details: {} }),
      );
    return;
  }
  const claimed = store.orders.claimForSending(shape.environmentId, count);
  const at = new Date(store.now());
  claimed.forEach((order, i) => {
    const index = first + i;
    const roll = random();
    // As the service answers: each call its own latency, and a created order the service's id for it (below).
    const attempt = {
      orderId: order.id,
      operation: 'create' as const,
      startedAt: at,
      latencyMs: 25 + Math.floor(random() * 400),
      httpStatus: 201,
      outcome: 'ok' as const,
    };
    if (roll < 0.03) {
      store.attempts.recordWithTransition({ ...attempt, httpStatus: 400, outcome: 'rejected' }, () => ({
        from: ['sending'],
        to: 'rejected',
        patch: { lastError: { kind: 'rejected', message: 'prescription.dmdCode is not known', field: null } },
        action: 'order.rejected',
      }));
      return;
    }
    if (roll < 0.035) {
      store.attempts.recordWithTransition({ ...attempt, httpStatus: 504, outcome: 'in-doubt' }, () => ({
        from: ['sending'],
        to: 'in_doubt',
        patch: { lastError: { kind: 'in-doubt', message: 'gateway timeout', field: null } },
        action: 'order.in-doubt',
      }));
      return;
    }
    store.attempts.recordWithTransition({ ...attempt, remoteId: String(order.id) }, () => ({
      from: ['sending'],
      to: 'created',
      patch: { pharmacyOrderId: order.id, lastError: null },
      action: 'order.created',
    }));
    const status = (orderStatus: string, extra: Partial<StatusRecord> = {}) =>
      applyStatusRecord(store, order.id, { orderStatus, ...extra } as StatusRecord, at);
    status('Prescription Received');
    if (index >= trackedFrom) {
      if (roll < 0.5) status('Prescription Being Prepared');
      return;
    }
    if (roll < 0.045) {
      store.cancellations.request(order.id, 'clinic withdrew the prescription');
      store.orders.transition(
        order.id,
        ['created'],
        'cancel_requested',
        {},
        { actor: 'user', action: 'order.cancel-requested', details: {} },
      );
      status('Cancelled');
      return;
    }
    status('Prescription Dispatched', { dispatchDate: '2026-01-02', trackingId: `TRK${order.id}` });
    if (roll < 0.06) return;
    status('Prescription Processed');
  });
}
