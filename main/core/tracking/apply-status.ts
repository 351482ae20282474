import { DISPATCHED_STATUSES, namesAnotherClinic, type StatusRecord } from '../../../shared/status.js';
import type { OrderState } from '../store/order-state.js';
import type { Store } from '../store/store.js';
import { CANCELLED_STATUS } from './tracked-orders.js';

export interface AppliedStatus {
  /** The status, dispatch date or tracking id differed from what the order showed (a history row was written). */
  changed: boolean;
  /** The local state moved (a cancel confirmed, or the pharmacy cancelled the order). */
  stateChanged: boolean;
  state: OrderState;
}

/**
 * Where a remote `Cancelled` takes each local state. `cancel_requested` stays put: its command is still in the
 * outbox, and the submitter settles it when the service says the order is already cancelled.
 */
const ON_CANCELLED: Partial<Record<OrderState, OrderState>> = {
  cancel_sent: 'cancelled',
  created: 'cancelled',
  cancel_refused: 'cancelled',
};

/**
 * Whether a record can be about this order: every identifier it gives (they are all nullable, and a clinic code is
 * given by some services only) is this order's.
 * A record with this pharmacy id and another clinic order id is someone else's answer (a service that mixed its
 * records up, a cache), and applying it could mark a live order cancelled by the pharmacy, or dispatched.
 */
export function describes(
  record: StatusRecord,
  order: { clinicCode: string; clinicOrderId: string; pharmacyOrderId: number | null },
): boolean {
  if (record.clinicOrderId != null && record.clinicOrderId !== order.clinicOrderId) return false;
  if (namesAnotherClinic(record, order.clinicCode)) return false;
  return record.pharmacyOrderId == null || record.pharmacyOrderId === String(order.pharmacyOrderId);
}

/**
 * This order's record in a lookup's answer (the poller's and the detail view's, one rule): one that `describes` it
 * with its pharmacy id, else one with no pharmacy id under its clinic order id. A record naming another order or
 * clinic ahead of ours must not hide it.
 */
export function ownRecord(
  records: readonly StatusRecord[],
  order: { clinicCode: string; clinicOrderId: string; pharmacyOrderId: number | null },
): StatusRecord | undefined {
  const about = records.filter((record) => describes(record, order));
  return (
    about.find((record) => record.pharmacyOrderId === String(order.pharmacyOrderId)) ??
    about.find((record) => record.pharmacyOrderId === null && record.clinicOrderId === order.clinicOrderId)
  );
}

/** Statuses before dispatch: none follows a dispatch or a cancel. */
const BEFORE_DISPATCH: readonly string[] = [
  'Waiting Payment Success',
  'Payment Failed',
  'Waiting Clinical Check',
  'Prescription at Pharmacy',
];

/**
 * A status that goes back on what the service already said (a stale replica or cache answering): a status before
 * dispatch after the order was dispatched, processed or cancelled, or dispatched after processed. Not shown as the
 * order's status: before, a dispatched order read "Prescription at Pharmacy" again (and offered a cancel) on a lagging
 * read. Unknown texts are never judged.
 */
export function goesBack(current: string | null, next: string): boolean {
  if (current === null) return false;
  if (current === 'Prescription Processed' && next === 'Prescription Dispatched') return true;
  const settled = DISPATCHED_STATUSES.includes(current) || current === CANCELLED_STATUS;
  return settled && BEFORE_DISPATCH.includes(next);
}

/**
 * Records what the service said about one order: the status history row, the order's mirror of it (remote
 * status, dispatch date, tracking id), any state change that follows (a sent cancel overtaken by dispatch ends
 * `cancel_refused`), and the audit entry, all in one
 * transaction. Unknown status texts are stored as they came. A record without a status, one naming another
 * order, or one going back on an earlier status (`goesBack`) says nothing to keep.
 */
export function applyStatusRecord(
  store: Store,
  orderId: number,
  record: StatusRecord,
  observedAt: Date,
): AppliedStatus | undefined {
  const status = record.orderStatus?.trim();
  if (!status) return undefined;
  return store.inTransaction(() => {
    const order = store.orders.get(orderId);
    if (!order || !describes(record, order)) return undefined;
    if (goesBack(order.remoteStatus, status)) return { changed: false, stateChanged: false, state: order.state };
    const changed = store.statusHistory.append(orderId, {
      status,
      dispatchDate: record.dispatchDate ?? null,
      trackingId: record.trackingId ?? null,
      observedAt,
    });
    // A cancel the service took (2xx) and then dispatched anyway did not take effect: the admin must hear it, and
    // the order is no longer watched as if the cancel might still land. Before, it stayed `cancel_sent` for good.
    const overtaken = order.state === 'cancel_sent' && DISPATCHED_STATUSES.includes(status);
    const next =
      status === CANCELLED_STATUS
        ? (ON_CANCELLED[order.state] ?? order.state)
        : overtaken
          ? 'cancel_refused'
          : order.state;
    const stateChanged = next !== order.state;
    if (!changed && !stateChanged) return { changed, stateChanged, state: order.state };

    const refusal = `the service took the cancel, but the order went on to "${status.slice(0, 100)}": it was not cancelled`;
    const action = !stateChanged
      ? 'order.status-changed'
      : overtaken
        ? 'order.cancel-refused'
        : order.state === 'cancel_sent'
          ? 'order.cancel-confirmed'
          : 'order.cancelled-by-pharmacy';
    store.orders.transition(
      orderId,
      [order.state],
      next,
      { remoteStatusAt: observedAt, ...(overtaken ? { lastError: { kind: 'rejected', message: refusal } } : {}) },
      {
        actor: 'system',
        action,
        details: {
          operation: 'status',
          remoteStatus: status.slice(0, 100),
          ...(overtaken ? { errorKind: 'rejected', errorMessage: refusal } : {}),
        },
      },
    );
    if (stateChanged) {
      const open = store.cancellations.open(orderId);
      if (open?.state === 'sent') {
        if (overtaken) store.cancellations.finish(open.id, 'refused', refusal);
        else store.cancellations.finish(open.id, 'cancelled', record.cancelReason ?? null);
      }
    }
    return { changed, stateChanged, state: next };
  });
}
