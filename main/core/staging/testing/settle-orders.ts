import type { StatusRecord } from '../../../../shared/status.js';
import type { Store } from '../../store/store.js';
import { LOCAL } from '../../store/testing/store-fixtures.js';
import { applyStatusRecord } from '../../tracking/apply-status.js';

/** What `settleOrders` makes of an order: refused, processed at the service, created and still tracked, or left queued. */
export type SettleOutcome = 'rejected' | 'processed' | 'tracked' | 'queued';

/** Sends the queued orders as the submitter would and gives each the outcome `plan` names (in id order). */
export function settleOrders(store: Store, plan: readonly SettleOutcome[]): number[] {
  const claimed = store.orders.claimForSending(LOCAL.id, plan.filter((p) => p !== 'queued').length);
  const at = store.now();
  claimed.forEach((order, i) => {
    const attempt = { orderId: order.id, operation: 'create' as const, startedAt: at, latencyMs: 5 };
    if (plan[i] === 'rejected') {
      store.attempts.recordWithTransition({ ...attempt, httpStatus: 400, outcome: 'rejected' }, () => ({
        from: ['sending'],
        to: 'rejected',
        patch: { lastError: { kind: 'rejected', message: 'not known', field: null } },
        action: 'order.rejected',
      }));
      return;
    }
    store.attempts.recordWithTransition({ ...attempt, httpStatus: 201, outcome: 'ok' }, () => ({
      from: ['sending'],
      to: 'created',
      patch: { pharmacyOrderId: order.id, lastError: null },
      action: 'order.created',
    }));
    applyStatusRecord(store, order.id, { orderStatus: 'Prescription Received' } as StatusRecord, at);
    if (plan[i] === 'processed') {
      applyStatusRecord(store, order.id, { orderStatus: 'Prescription Processed' } as StatusRecord, at);
    }
  });
  return claimed.map((order) => order.id);
}
