import type {
  AttentionView,
  AuditEntryView,
  OrderDetail,
  OrderSummary,
  OutboxProgressView,
} from '../../shared/outbox-views.js';
import type { AuditEntry } from './audit/audit-entry.js';
import { maskIdentifier } from './audit/mask-identifier.js';
import type { AttentionEvent } from './outbox/attention.js';
import type { OutboxProgress } from './outbox/progress.js';
import type { OrderRecord } from './store/orders-repo.js';
import type { Store } from './store/store.js';

/**
 * Store records as the contract shows them. Request bodies (patient data) never leave through here; identifiers,
 * states, the service's answers and the audit trail do.
 */

export function toOrderSummary(order: OrderRecord): OrderSummary {
  return {
    id: order.id,
    batchId: order.batchId,
    environmentId: order.environmentId,
    clinicCode: order.clinicCode,
    clinicOrderId: order.clinicOrderId,
    route: order.route,
    state: order.state,
    pharmacyOrderId: order.pharmacyOrderId,
    remoteStatus: order.remoteStatus,
    remoteStatusAt: order.remoteStatusAt,
    dispatchDate: order.dispatchDate,
    trackingId: order.trackingId,
    lastError: order.lastError,
    attempts: order.attempts,
    nextAttemptAt: order.nextAttemptAt,
    createdAt: order.createdAt,
    updatedAt: order.updatedAt,
  };
}

export function toAuditView(entry: AuditEntry): AuditEntryView {
  const details: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(entry.details)) if (value !== undefined) details[key] = value;
  return { ...entry, details };
}

/** One order with everything that happened to it, or undefined when there is no such order. */
export function orderDetail(store: Store, orderId: number): OrderDetail | undefined {
  const order = store.orders.get(orderId);
  if (!order) return undefined;
  return {
    order: toOrderSummary(order),
    items: store.orders.items(orderId),
    attempts: store.attempts.list(orderId),
    statusHistory: store.statusHistory.list(orderId).map(({ orderId: _orderId, ...row }) => row),
    cancellations: store.cancellations.list(orderId).map(({ orderId: _orderId, ...row }) => row),
    audit: store.audit.forOrder(orderId).map(toAuditView),
  };
}

export function toProgressView(progress: OutboxProgress): OutboxProgressView {
  return {
    environmentId: progress.environmentId,
    state: progress.state,
    counts: progress.counts,
    ordersPerSecond: progress.ordersPerSecond,
    message: progress.message,
  };
}

/**
 * The outbox's conditions as notifications: the kind says what to do, the message says it in words. Clinic order
 * ids are masked as in exports (a notification can show on a locked screen); `orderIds` lets the UI open them.
 */
export function toAttentionView(event: AttentionEvent, at: Date): AttentionView {
  if (event.kind !== 'order') {
    return {
      environmentId: event.environmentId,
      kind: event.kind,
      message: event.message,
      orderIds: [],
      at: at.toISOString(),
    };
  }
  const kind = event.reason === 'cancel-refused' ? 'cancel-refused' : `order-${event.reason}`;
  return {
    environmentId: event.environmentId,
    kind,
    message: `Order ${maskIdentifier(event.clinicOrderId)} of ${event.clinicCode}: ${event.message.replaceAll(event.clinicOrderId, maskIdentifier(event.clinicOrderId))}`,
    orderIds: [event.orderId],
    at: at.toISOString(),
  };
}
