import { differingId, listedDifferentlyReason } from '../../../shared/not-found-at-service.js';
import { namesAnotherClinic, type StatusRecord } from '../../../shared/status.js';
import type { ListedDifferently, OrderRecord } from '../store/orders-repo.js';
import type { Store } from '../store/store.js';

/**
 * A lookup that lists a record which may be this order but is not taken as it (`describes` refuses it): its clinic
 * order id differs from ours only in case or spaces (a service that normalises them) with our pharmacy id or none,
 * or it gives our clinic order id with another pharmacy id than the create returned. Taking it could apply another
 * order's status (a `Cancelled`, a dispatch) to this one, so it is still not taken; but it is no miss either. Counted
 * as one, an hour of such answers flagged the order "not found at the service" while the service listed it every
 * time. So the order's lookup outcome is "listed differently": the run of misses ends, the admin is told once (one
 * audit entry per listing, ids only) and the Orders screen and `rx-batch status` say what was listed.
 * A record differing in both ids, or naming no clinic order id, is another order's: a miss, as before.
 */

export const LISTED_DIFFERENTLY_ACTION = 'order.listed-differently';

type Listed = Omit<ListedDifferently, 'at'>;

const loose = (id: string) => id.trim().toLowerCase();
const clip = (id: string, max: number) => (id.length > max ? `${id.slice(0, max)}…` : id);

/** The first record of a lookup's answer (none of them this order's own) that lists this order differently. */
export function listedDifferently(
  records: readonly StatusRecord[],
  order: Pick<OrderRecord, 'clinicCode' | 'clinicOrderId' | 'pharmacyOrderId'>,
): Listed | undefined {
  const pharmacyId = String(order.pharmacyOrderId);
  const near = records.find((record) => {
    if (record.clinicOrderId == null || namesAnotherClinic(record, order.clinicCode)) return false;
    if (record.clinicOrderId === order.clinicOrderId) {
      return record.pharmacyOrderId !== null && record.pharmacyOrderId !== pharmacyId;
    }
    const ourPharmacyId = record.pharmacyOrderId === null || record.pharmacyOrderId === pharmacyId;
    return ourPharmacyId && loose(record.clinicOrderId) === loose(order.clinicOrderId);
  });
  if (!near?.clinicOrderId) return undefined;
  // The clinic order id is ours but for case (or ours), so no longer than ours; a pharmacy id may be anything
  // (an empty one is none).
  return {
    clinicOrderId: near.clinicOrderId,
    pharmacyOrderId: near.pharmacyOrderId ? clip(near.pharmacyOrderId, 32) : null,
  };
}

/** The note's reason, worded for the CLI; undefined while the order has none. */
export function listedDifferentlyNote(
  order: Pick<OrderRecord, 'clinicOrderId' | 'pharmacyOrderId' | 'listedDifferently'>,
): string | undefined {
  return order.listedDifferently ? listedDifferentlyReason({ ...order, listed: order.listedDifferently }) : undefined;
}

/**
 * Records a lookup that listed the order differently: any run of misses ends (a "not found" flag is replaced), and a
 * listing new to the order is noted with one audit entry naming the order, the id that differs and both values of
 * each. True when this lookup noted it (news for the screens).
 */
export function noteListedDifferently(store: Store, order: OrderRecord, listed: Listed): boolean {
  const facts = { ...order, listed };
  return store.orders.noteListedDifferently(order.id, listed, {
    actor: 'system',
    action: LISTED_DIFFERENTLY_ACTION,
    details: {
      operation: 'status',
      outcome: 'listed-differently',
      errorField: differingId(facts),
      remoteId: String(order.pharmacyOrderId),
      errorMessage: listedDifferentlyReason(facts),
    },
  });
}
