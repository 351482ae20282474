import type { ClaimedOrder, OrderRecord } from '../store/orders-repo.js';
import type { DueCancel } from '../store/outbox-queue-repo.js';
import { sendCancel } from './cancel-sender.js';
import { lookUpInDoubt } from './reconcile.js';
import { clip, reasonOf, type Answer, type Recorded, type StepContext } from './step.js';
import { sendOrder, toInDoubt } from './submitter.js';

/**
 * One unit of the sending loop's work, keyed by order id (an order is never in two kinds of work at once). A create
 * carries the number of the commit that claimed it: its request leaves only once that commit is durable.
 */
export type Work =
  | { kind: 'create'; id: number; order: ClaimedOrder; commit: number }
  | { kind: 'lookup'; id: number; order: OrderRecord }
  | { kind: 'cancel'; id: number; command: DueCancel };

/** The network part of a unit of work: the step of its kind (its bookkeeping comes back in the answer). */
export function networkPart(ctx: StepContext, work: Work): Promise<Answer> {
  if (work.kind === 'create') return sendOrder(ctx, work.order);
  if (work.kind === 'lookup') return lookUpInDoubt(ctx, work.order);
  return sendCancel(ctx, work.command);
}

/**
 * A step threw (a bug, or the store failed): never lose the order. A create whose answer could not be
 * recorded is in doubt (it may exist); a lookup or cancel stays where it is and is tried again later.
 */
export function afterBug(ctx: StepContext, work: Work, error: unknown): Recorded {
  const reason = reasonOf(error);
  ctx.logger.error('outbox step failed', {
    environmentId: ctx.environmentId,
    orderId: work.id,
    operation: work.kind,
    reason,
  });
  const message = clip(`internal error while recording the outcome: ${reason}`);
  const later = new Date(ctx.now().getTime() + Math.max(1000, ctx.tuning.baseDelayMs));
  try {
    if (work.kind === 'create') {
      toInDoubt(ctx, work.id, 'sending', { kind: 'in-doubt', message }, ctx.tuning.reconcileDelayMs);
    } else {
      const state = work.kind === 'lookup' ? 'in_doubt' : 'cancel_requested';
      ctx.store.outboxQueue.reschedule(work.id, state, later);
    }
  } catch (second) {
    ctx.logger.error('could not set the order aside after a failure', {
      environmentId: ctx.environmentId,
      orderId: work.id,
      reason: reasonOf(second),
    });
  }
  return {};
}
