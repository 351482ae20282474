import type { CallOutcome } from '../service/client.js';
import type { AttemptRecord } from '../store/attempts-repo.js';
import type { PharmacyIdHolder } from '../store/orders-repo.js';
import {
  attemptOf,
  heldForAPerson,
  inDoubtDecision,
  recordDecision,
  type Decision,
  type Recorded,
  type StepContext,
} from './step.js';

/**
 * The service names, for this order, a pharmacy order id another order here already has (a service that answers the
 * last order's id, de-duplicates by content, or mixes its answers up). Two orders of ours cannot both be that one
 * order: storing it broke the store's unique index, the step failed, and the order was looked up and sent again
 * every two seconds for good, with none of those sends on record. Now it is decided, with the attempt recorded:
 * - a create's answer: the order may or may not be at the service under another id, so it is in doubt and looked
 *   up (the lookup finds its own id, or not); the same id answered to a second create of it holds it for a person;
 * - a lookup's: held for a person, naming both orders; it is not sent again.
 */

type Order = { environmentId: string; id: number; clinicCode: string; clinicOrderId: string };

/** The other order here that has this pharmacy order id, if one does. */
export function otherHolder(ctx: StepContext, order: Order, pharmacyOrderId: number): PharmacyIdHolder | undefined {
  const holder = ctx.store.orders.pharmacyIdHolder(order.environmentId, pharmacyOrderId);
  return holder && holder.id !== order.id ? holder : undefined;
}

const named = (holder: PharmacyIdHolder) => `order ${holder.clinicOrderId} (clinic ${holder.clinicCode})`;

/** The bookkeeping for a create answered with another order's pharmacy order id. */
export function settleCreateClash(
  ctx: StepContext,
  order: Order,
  startedAt: Date,
  outcome: Extract<CallOutcome<{ orderId: number }>, { ok: true }>,
  holder: PharmacyIdHolder,
): Recorded {
  const id = outcome.value.orderId;
  const again = ctx.store.attempts
    .list(order.id)
    .some((attempt: AttemptRecord) => attempt.operation === 'create' && attempt.remoteId === String(id));
  const message = again
    ? `the service answered pharmacy order id ${id} again, which ${named(holder)} already has: it is not sent again; check both orders at the service`
    : `the service answered pharmacy order id ${id}, which ${named(holder)} already has: looking this order up`;
  const attempt = {
    ...attemptOf(order.id, 'create', startedAt, outcome, String(id)),
    outcome: 'in-doubt' as const,
    errorMessage: message,
  };
  const attention = recordDecision(ctx, attempt, () =>
    again ? heldForAPerson(order, message, 'sending') : inDoubtDecision(ctx, { kind: 'in-doubt', message }, 0),
  );
  return attention ? { attention } : {};
}

/** A lookup that lists this order under another order's pharmacy order id: held for a person. */
export function lookupClashDecision(order: Order, pharmacyOrderId: number, holder: PharmacyIdHolder): Decision {
  return heldForAPerson(
    order,
    `the service lists this order under pharmacy order id ${pharmacyOrderId}, which ${named(holder)} already has: it is not sent again; check both orders at the service`,
  );
}
