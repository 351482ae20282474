import { resolveGroupCancel } from '../importing/group-cancel.js';
import { groupItemsOfMessage, placerNumbersOfMessage } from '../importing/hl7-placer-group.js';
import type { Problem } from '../model/imported-order.js';
import type { StagedOrderSource } from '../store/staged-order-types.js';
import type { OrderRecord } from '../store/order-records.js';
import type { Store } from '../store/store.js';

/**
 * The item placer numbers (ORC-2) of an accepted order that came as a placer group (several items under one ORC-4,
 * hl7-field-map.ts), read from the message it was staged from; undefined for any other order, or one whose staged
 * copy retention has already dropped (only a finished order's, which no cancel can change).
 */
export function groupItemsOfOrder(store: Store, order: OrderRecord): string[] | undefined {
  const stagedId = store.stagedOrders.acceptedRowOf(order);
  if (stagedId === undefined) return undefined;
  return groupItemsOfMessage(store.stagedOrders.get(stagedId)?.source.hl7, order.clinicOrderId);
}

/** groupItemsOfOrder for the order accepted in the environment under this identity, if any. */
export function acceptedGroupItems(
  store: Store,
  environmentId: string,
  clinicCode: string,
  clinicOrderId: string,
): string[] | undefined {
  const order = store.orders.findAccepted(environmentId, clinicCode, clinicOrderId);
  return order && groupItemsOfOrder(store, order);
}

/**
 * The accept's own check of a cancel that acts on `order`: a cancel of a grouped order naming only some of its items
 * (staged before the import checked that, or the order's items learnt since) must not cancel the whole order.
 */
export function partialCancelAtAccept(
  store: Store,
  cancel: { clinicCode: string; clinicOrderId: string; source: StagedOrderSource },
  order: OrderRecord,
): Problem | undefined {
  const placers = placerNumbersOfMessage(cancel.source.hl7);
  if (!placers || placers.group !== order.clinicOrderId) return undefined;
  return resolveGroupCancel({
    clinicCode: cancel.clinicCode,
    clinicOrderId: cancel.clinicOrderId,
    placers,
    // The cancel was found to be of the group's order itself (its identity is the group's ORC-4).
    isKnownOrder: () => false,
    groupItemsOf: () => groupItemsOfOrder(store, order),
    file: cancel.source.file,
    fallback: cancel.source.message !== undefined ? { message: cancel.source.message } : {},
  }).problem;
}
