import { notFoundReason } from '../../../shared/not-found-at-service.js';
import type { NotFoundRun, OrderRecord } from '../store/orders-repo.js';
import type { Store } from '../store/store.js';

/**
 * An order the service created and no longer finds (deleted there, an environment pointing at another service, a
 * service reset, a clinic-scope change): flagged for a person once the service has failed to find it on
 * NOT_FOUND_LOOKUPS lookups in a row AND at least NOT_FOUND_FOR_MS after the first of them.
 *
 * Why both: a count alone comes too soon (at the poller's 1 → 2 → 4 min backoff, three misses take 7 minutes, well
 * within a replica that lags a fresh order or a short outage answering empty lists); a time alone comes on too little
 * evidence (two lookups an hour apart, say a laptop that slept between them). An hour is longer than the poller's
 * longest interval (16 min), so by default the flag comes at the first miss past the hour, about the 6th. Any lookup
 * that finds the order ends the run, so the misses must be in a row; so does one that lists it under other ids
 * (listed-differently.ts), which is no miss: the service listed something.
 *
 * The flag is additive (migration 026): the order's state and status stay as they were, and polling goes on at its
 * backed-off pace; the first lookup that finds it clears the flag. One audit entry when it is raised and one when it
 * clears; the misses in between write only the count.
 */
export const NOT_FOUND_LOOKUPS = 3;
export const NOT_FOUND_FOR_MS = 60 * 60_000;

export const LOST_AT_SERVICE_ACTION = 'order.lost-at-service';
export const FOUND_AT_SERVICE_ACTION = 'order.found-at-service';

export function meetsNotFoundRule(run: Pick<NotFoundRun, 'lookups' | 'since'>, now: Date): boolean {
  return run.lookups >= NOT_FOUND_LOOKUPS && now.getTime() - Date.parse(run.since) >= NOT_FOUND_FOR_MS;
}

/** The flag's reason, worded for the CLI and the log (`since` in UTC); undefined while the order is not flagged. */
export function lostAtServiceReason(order: Pick<OrderRecord, 'clinicOrderId' | 'pharmacyOrderId' | 'notFound'>) {
  const run = order.notFound;
  if (!run?.flaggedAt) return undefined;
  return notFoundReason({ ...order, lookups: run.lookups, since: run.since });
}

/**
 * Records a lookup at which the service did not find the order, and flags the order when that meets the rule.
 * True when this lookup raised the flag.
 */
export function noteNotFound(store: Store, order: OrderRecord, now: Date): boolean {
  return store.inTransaction(() => {
    const run = store.orders.recordNotFound(order.id, now);
    if (!run || run.flaggedAt !== null || !meetsNotFoundRule(run, now)) return false;
    return store.orders.flagNotFound(order.id, {
      actor: 'system',
      action: LOST_AT_SERVICE_ACTION,
      details: {
        operation: 'status',
        outcome: 'not-found',
        remoteId: String(order.pharmacyOrderId),
        errorMessage: notFoundReason({ ...order, lookups: run.lookups, since: run.since }),
      },
    });
  });
}

/**
 * The service found the order: a run of misses ends, and a flag (or a note that it was listed under other ids,
 * listed-differently.ts) clears with its audit entry. True when one was cleared. Writes nothing for an order with
 * neither misses nor a note (the usual case), so a found lookup costs what it did.
 */
export function noteFound(
  store: Store,
  order: Pick<OrderRecord, 'id' | 'pharmacyOrderId' | 'notFound' | 'listedDifferently'>,
): boolean {
  if (!order.notFound && !order.listedDifferently) return false;
  return store.orders.clearNotFound(order.id, {
    actor: 'system',
    action: FOUND_AT_SERVICE_ACTION,
    details: { operation: 'status', outcome: 'found', remoteId: String(order.pharmacyOrderId) },
  });
}
