import type { CodeLists } from '../../shared/environment.js';
import type { AuditEntryView } from '../../shared/log-views.js';
import type { OrderDetail, OrderOrigin, OrderSource, OrderSummary } from '../../shared/order-views.js';
import type { AttentionView, OutboxProgressView } from '../../shared/outbox-views.js';
import { cutText } from '../../shared/cut-text.js';
import { STATUS_TEXT_MAX } from '../../shared/status.js';
import type { AuditDetails } from './model/audit-details.js';
import type { AuditEntry } from './model/audit-entry.js';
import { maskIdentifier, maskIdentifierIn } from './audit/mask-identifier.js';
import type { AttentionEvent } from './outbox/attention.js';
import type { OutboxProgress } from './outbox/progress.js';
import type { OrderRecord } from './store/orders-repo.js';
import { hl7ControlId } from './store/request-body-fields.js';
import type { Store } from './store/store.js';
import { courierCodeOf } from './tracking/order-courier.js';

/**
 * Store records as the contract shows them. Request bodies (patient data) never leave through here; identifiers,
 * states, the service's answers and the audit trail do. The one exception is `orderSource`, an order's original
 * file text, which the detail view asks for when the admin opens "Show source".
 */

/** `codeLists`: the order's environment's, to name a v2 order's courier (for a tracking link). */
export function toOrderSummary(order: OrderRecord, codeLists?: CodeLists): OrderSummary {
  return {
    id: order.id,
    batchId: order.batchId,
    environmentId: order.environmentId,
    clinicCode: order.clinicCode,
    clinicOrderId: order.clinicOrderId,
    route: order.route,
    state: order.state,
    pharmacyOrderId: order.pharmacyOrderId,
    // Cut again for rows a version before finding 68 kept whole: one of them made every page holding it fail.
    remoteStatus: order.remoteStatus && cutText(order.remoteStatus, STATUS_TEXT_MAX.orderStatus),
    remoteStatusAt: order.remoteStatusAt,
    dispatchDate: order.dispatchDate && cutText(order.dispatchDate, STATUS_TEXT_MAX.dispatchDate),
    trackingId: order.trackingId && cutText(order.trackingId, STATUS_TEXT_MAX.trackingId),
    courierCode: courierCodeOf(order.route, order.requestBody, codeLists),
    lastError: order.lastError,
    attempts: order.attempts,
    nextAttemptAt: order.nextAttemptAt,
    ...(order.notFound?.flaggedAt
      ? {
          notFoundAtService: {
            lookups: order.notFound.lookups,
            since: order.notFound.since,
            flaggedAt: order.notFound.flaggedAt,
          },
        }
      : {}),
    ...(order.listedDifferently ? { listedDifferently: order.listedDifferently } : {}),
    createdAt: order.createdAt,
    updatedAt: order.updatedAt,
  };
}

export function toAuditView(entry: AuditEntry): AuditEntryView {
  const details: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(entry.details)) if (value !== undefined) details[key] = value;
  return { ...entry, details };
}

/** Where the order came from, as identifiers (file, lines, message, control id); no source text. */
export function orderOrigin(store: Store, orderId: number): OrderOrigin | undefined {
  const origin = store.orders.origin(orderId);
  if (!origin) return undefined;
  const { staged } = origin;
  return {
    batchId: origin.batchId,
    fileName: origin.fileName,
    format: origin.kind,
    importedAt: origin.importedAt,
    position: staged && staged.position > 0 ? staged.position : null,
    lines: staged?.rows.filter((line) => Number.isInteger(line) && line > 0) ?? [],
    message: staged?.message ?? null,
    controlId: staged?.hl7Header ? (hl7ControlId(staged.hl7Header)?.slice(0, 200) ?? null) : null,
    sourceKept: staged?.sourceKept ?? false,
    edited: staged?.edited ?? false,
  };
}

/** The order's original text (patient data), or undefined when the app kept none for it. */
export function orderSource(store: Store, orderId: number): OrderSource | undefined {
  const source = store.orders.source(orderId);
  if (!source) return undefined;
  const line = (value: number | null) => (value !== null && value > 0 ? value : null);
  if (source.kind === 'hl7') {
    return {
      format: 'hl7',
      fileName: source.fileName,
      message: line(source.message),
      segments: source.text.split(/\r\n|\r|\n/).filter((segment) => segment !== ''),
    };
  }
  if (source.records.length === 0) return undefined;
  return {
    format: 'csv',
    fileName: source.fileName,
    header: source.header && { line: line(source.header.line), text: source.header.text },
    records: source.records.map((record) => ({ line: line(record.line), text: record.text })),
  };
}

/**
 * `orderSource` for an admin's "Show source": each viewing of patient data is recorded first, as
 * `order.source.viewed` with the order's identifiers, its environment and the front end it was viewed through
 * (no source text, no patient field). If the entry cannot be written, the text is not shown.
 */
export function viewOrderSource(
  store: Store,
  orderId: number,
  via: NonNullable<AuditDetails['via']>,
): OrderSource | undefined {
  const source = orderSource(store, orderId);
  const order = source && store.orders.get(orderId);
  if (!source || !order) return undefined;
  store.audit.append({
    actor: 'user',
    action: 'order.source.viewed',
    environmentId: order.environmentId,
    batchId: order.batchId,
    orderId,
    clinicCode: order.clinicCode,
    clinicOrderId: order.clinicOrderId,
    details: { via, fileKind: source.format },
  });
  return source;
}

/** One order with everything that happened to it, or undefined when there is no such order. */
export function orderDetail(store: Store, orderId: number): OrderDetail | undefined {
  const order = store.orders.get(orderId);
  const origin = orderOrigin(store, orderId);
  if (!order || !origin) return undefined;
  return {
    order: toOrderSummary(order, store.environments.get(order.environmentId)?.codeLists),
    origin,
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
    notedOutsideAttention: progress.notedOutsideAttention,
    ordersPerSecond: progress.ordersPerSecond,
    message: progress.message,
    ...(progress.needsSettings ? { needsSettings: true } : {}),
    ...(progress.accessRefused ? { accessRefused: true } : {}),
    nextAttemptAt: progress.nextAttemptAt,
    batches: progress.batches,
    slow: progress.slow,
  };
}

/**
 * What a notification says of a whole environment's condition: a sentence for a person. The technical cause (a
 * socket error, an HTTP status) is in the Submissions banner's details and the Log, not on the desktop.
 */
const ENVIRONMENT_NOTICES: Record<Exclude<AttentionEvent['kind'], 'order'>, string> = {
  'service-unavailable':
    'The Order Service is not answering. Orders wait safely and go out by themselves when it answers again.',
  'sign-in-required': 'Sign in again to keep sending: the service no longer accepts this sign-in. Nothing is lost.',
};

/** The service answers, but not as the environment is set up (its certificate, its address or API version). */
const SETTINGS_NOTICE =
  'The Order Service cannot be used as this environment is set up: check its settings (the cause is in Submissions). Orders wait safely.';

/** Every request is refused with 403 (a firewall, an IP allow-list, a gateway): not an outage to wait out blindly. */
const ACCESS_REFUSED_NOTICE =
  'The Order Service (or something in front of it) refuses this computer: access may be blocked. Orders wait safely and go out by themselves once it lets requests through.';

/** What a notification says of an environment-wide condition. */
function environmentNotice(event: Exclude<AttentionEvent, { kind: 'order' }>): string {
  if (event.kind === 'service-unavailable' && event.needsSettings) return SETTINGS_NOTICE;
  if (event.kind === 'service-unavailable' && event.accessRefused) return ACCESS_REFUSED_NOTICE;
  return ENVIRONMENT_NOTICES[event.kind];
}

/**
 * The outbox's conditions as notifications: the kind says what to do, the message says it in words. An order is
 * named as the screens name it, "<clinic order id> (<clinic code>)", its id masked in `message` as in exports (an
 * OS notification can show on a locked screen); `order` gives the screen the id in full and the order to open.
 */
export function toAttentionView(event: AttentionEvent, at: Date): AttentionView {
  if (event.kind !== 'order') {
    return {
      environmentId: event.environmentId,
      kind: event.kind,
      message: environmentNotice(event),
      orderIds: [],
      at: at.toISOString(),
    };
  }
  const kind = event.reason === 'cancel-refused' ? 'cancel-refused' : `order-${event.reason}`;
  return {
    environmentId: event.environmentId,
    kind,
    message: `Order ${maskIdentifier(event.clinicOrderId)} (${event.clinicCode}): ${maskIdentifierIn(event.message, event.clinicOrderId)}`,
    orderIds: [event.orderId],
    at: at.toISOString(),
    order: {
      id: event.orderId,
      clinicCode: event.clinicCode,
      clinicOrderId: event.clinicOrderId,
      detail: event.message,
    },
  };
}
