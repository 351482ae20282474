import type { AcceptOutcome } from '../../../shared/staging-views.js';
import type { Problem } from '../model/imported-order.js';
import type { NewOrder } from '../store/orders-repo.js';
import type { BatchRecord } from '../store/batches-repo.js';
import type { OrderRecord } from '../store/order-records.js';
import type { AcceptCandidate, StagedOrder } from '../store/staged-orders-repo.js';
import { requestCancel } from '../tracking/cancel-request.js';
import { partialCancelAtAccept } from './group-items.js';
import { fallbackOf } from './reassess.js';
import { wireRequest } from './route-request.js';
import { StagingError, type StagingDeps } from './staging-deps.js';

/**
 * Accepting a batch: every valid staged order becomes a `queued` outbox order holding the exact request for the
 * batch's route (what the preview showed), its staged row is marked accepted, and one `batch.accepted` audit entry
 * records the counts: in one transaction (`acceptBatch`), or in steps of their own (`acceptBatchInSteps`). Invalid orders stay staged for fixing. An order accepted from
 * another batch since this one was staged (or twice in this batch) is not queued a second time: it stays staged
 * with an `order.alreadyKnown` error. An HL7 cancel message (ORC-1 CA) becomes a cancel request for the order it
 * names (or the withdrawal of that order, if it was never sent). The caller wakes the outbox afterwards.
 */

const PAGE = 1000;

function stayingProblem(order: Pick<StagedOrder, 'source'>, code: string, text: string): Problem {
  return {
    severity: 'error',
    file: order.source.file,
    ...fallbackOf(order),
    field: 'prescription.clinicOrderId',
    code,
    text,
  };
}

/**
 * Accepting part of a batch, by live intake: the orders one message added (positions `after` < p ≤ `upTo`). No
 * `batch.accepted` entry: the intake's own audit entry for the message (`intake.accepted`, in the same
 * transaction) records it.
 */
export interface AcceptRange {
  after: number;
  upTo: number;
  /** Live intake: whether a cancel may act on the order it names (see CancelCheck). */
  cancelCheck?: CancelCheck;
}

/**
 * Live intake's check before a cancel acts on an accepted order: a problem (a warning) when it may not, because
 * another sender (or an admin's import) sent that order. The cancel then stays staged, valid, with that problem,
 * so an admin who reviews it can still accept it deliberately; an admin's own accept runs no check.
 */
export type CancelCheck = (cancel: AcceptCandidate, order: OrderRecord) => Problem | undefined;

export function acceptBatch(deps: StagingDeps, batchId: number, range?: AcceptRange): AcceptOutcome {
  const batch = acceptable(deps, batchId);
  const { store } = deps;
  return store.inTransaction(() => {
    const pages = acceptPages(deps, batch, new Set(), {
      after: range?.after ?? 0,
      upTo: range?.upTo ?? Infinity,
      ...(range?.cancelCheck ? { cancelCheck: range.cancelCheck } : {}),
    });
    if (!range) return finish(deps, batch, pages.accepted, pages.cancelled);
    // A range is orders just appended: none is a legacy `ready` order, and what stays is the rest of the range.
    const staying = range.upTo - range.after - pages.accepted - pages.cancelled;
    return { ...outcomeBase(batch), accepted: pages.accepted, cancelled: pages.cancelled, staying };
  });
}

/**
 * A whole batch accepted in steps of `stepOrders` staged orders, each its own transaction, with `pause()` awaited
 * between them, so a 50,000-order accept never holds the core's loop for long (issue #14): other calls are
 * answered meanwhile, and the outbox (woken by `onStep`) starts sending what is already queued. Every step but the
 * last records a `batch.accepting` entry with its count, so the log says what happened even if the app stops
 * half-way; accepting the batch again goes on from there (accepted orders are no longer candidates). The last step
 * records `batch.accepted` with the totals, as a one-step accept does.
 */
export async function acceptBatchInSteps(
  deps: StagingDeps,
  batchId: number,
  options: {
    stepOrders: number;
    pause: () => Promise<void>;
    onStep?: (queued: number) => void;
    /** Positions up to this one only (positions run 1, 2, …: the batch's count the admin saw). */
    seen?: number;
    /** Live intake (a watched folder's file): whether a cancel may act on the order it names. */
    cancelCheck?: CancelCheck;
  },
): Promise<AcceptOutcome> {
  const upTo = options.seen ?? Infinity;
  const queuedNow = new Set<string>();
  let after = 0;
  let accepted = 0;
  let cancelled = 0;
  for (;;) {
    // Checked again at every step: the batch is re-read, so a discard in between is seen.
    const batch = acceptable(deps, batchId);
    const outcome = deps.store.inTransaction(() => {
      const step = acceptPages(deps, batch, queuedNow, {
        after,
        upTo,
        maxOrders: options.stepOrders,
        ...(options.cancelCheck ? { cancelCheck: options.cancelCheck } : {}),
      });
      after = step.after;
      accepted += step.accepted;
      cancelled += step.cancelled;
      if (step.done) return finish(deps, batch, accepted, cancelled, upTo);
      deps.store.audit.append({
        actor: 'user',
        action: 'batch.accepting',
        environmentId: batch.environmentId,
        batchId,
        details: { orderCount: step.accepted, route: batch.route },
      });
      return undefined;
    });
    options.onStep?.(accepted + cancelled);
    if (outcome) return outcome;
    await options.pause();
  }
}

function acceptable(deps: StagingDeps, batchId: number): BatchRecord {
  const batch = deps.store.batches.get(batchId);
  if (!batch) throw new StagingError(`there is no batch ${batchId}`);
  if (batch.discardedAt !== null) {
    throw new StagingError(`batch ${batchId} was discarded; its orders are not accepted`);
  }
  return batch;
}

const outcomeBase = (batch: BatchRecord) => ({
  batchId: batch.id,
  environmentId: batch.environmentId,
  route: batch.route,
});

/** The end of a whole-batch accept, in its last transaction: legacy orders, then one `batch.accepted` entry. */
function finish(
  deps: StagingDeps,
  batch: BatchRecord,
  accepted: number,
  cancelled: number,
  upTo = Infinity,
): AcceptOutcome {
  const { store } = deps;
  const total = accepted + acceptLegacyReadyOrders(deps, batch.id);
  const counts = store.stagedOrders.counts(batch.id);
  const staying = counts.staged;
  const arrived = Number.isFinite(upTo) ? Math.max(0, counts.total - upTo) : 0;
  store.audit.append({
    actor: 'user',
    action: 'batch.accepted',
    environmentId: batch.environmentId,
    batchId: batch.id,
    details: { orderCount: total, invalidCount: staying, route: batch.route },
  });
  return { ...outcomeBase(batch), accepted: total, cancelled, staying, ...(arrived > 0 ? { arrived } : {}) };
}

interface PageRange {
  after: number;
  /** The last position to take (live intake: one message's orders); Infinity for the whole batch. */
  upTo: number;
  /** At most this many candidates (one step of an accept in steps); the rest is left for the next step. */
  maxOrders?: number;
  cancelCheck?: CancelCheck;
}

/**
 * The accept's work on the staged orders after `from.after`, in the caller's transaction. `queuedNow` holds the
 * identities queued by this accept so far: the unique index would refuse a second, and so do we, gently.
 */
function acceptPages(
  deps: StagingDeps,
  batch: BatchRecord,
  queuedNow: Set<string>,
  from: PageRange,
): { accepted: number; cancelled: number; after: number; done: boolean } {
  const { store } = deps;
  const batchId = batch.id;
  const codeLists = deps.codeListsFor(batch.environmentId);
  const route = batch.route;
  let accepted = 0;
  let cancelled = 0;
  let after = from.after;
  let taken = 0;

  /** Rare: an order that cannot go after all stays staged, with the reason added to its problems. */
  const keepStaged = (id: number, ...problems: Problem[]) => {
    const order = store.stagedOrders.get(id)!;
    store.stagedOrders.update(id, {
      ...order,
      problems: [...order.problems, ...problems],
      valid: false,
      edited: false,
    });
  };

  /** A cancel the intake may not act on: staged with the reason, still valid, for an admin to decide. */
  const holdForReview = (id: number, problem: Problem) => {
    const order = store.stagedOrders.get(id)!;
    if (order.problems.some((p) => p.code === problem.code)) return;
    store.stagedOrders.update(id, { ...order, problems: [...order.problems, problem], edited: false });
  };

  for (;;) {
    const limit = from.maxOrders === undefined ? PAGE : Math.min(PAGE, from.maxOrders - taken);
    const read = store.stagedOrders.acceptCandidates(batchId, after, limit);
    const page = read.filter((candidate) => candidate.position <= from.upTo);
    // A short page (or the end of the range) is the last: no further query that would find nothing.
    if (page.length === 0) return { accepted, cancelled, after, done: true };
    after = page[page.length - 1]!.position;
    taken += page.length;
    const done = read.length < limit || after >= from.upTo;
    let toQueue: Array<{ stagedId: number; order: NewOrder }> = [];
    const enqueuePending = () => {
      if (toQueue.length === 0) return;
      const ids = store.orders.enqueue(
        batchId,
        toQueue.map((entry) => entry.order),
      );
      ids.forEach((orderId, index) => store.stagedOrders.markAccepted(toQueue[index]!.stagedId, orderId));
      accepted += ids.length;
      toQueue = [];
    };
    for (const staged of page) {
      const { clinicCode, clinicOrderId } = staged;
      if (!clinicCode || !clinicOrderId) continue;
      // A cancel acts on what came before it, the new orders of this page included: they are queued first, so a
      // cancel that follows its order in the same file or run of messages finds it (and withdraws it unsent).
      if (staged.orderControl === 'CA') enqueuePending();
      const known = store.orders.findAccepted(batch.environmentId, clinicCode, clinicOrderId);
      if (staged.orderControl === 'CA') {
        if (!known) {
          keepStaged(
            staged.id,
            stayingProblem(
              staged,
              'cancel.unknownOrder',
              `The cancel is for order '${clinicOrderId}' of clinic '${clinicCode}', which no batch queued or sent.`,
            ),
          );
          continue;
        }
        const refusal = from.cancelCheck?.(staged, known);
        if (refusal) {
          holdForReview(staged.id, refusal);
          continue;
        }
        // Some items of a grouped order: the service cancels whole orders only (group-cancel.ts).
        const partial = partialCancelAtAccept(store, { ...staged, clinicCode, clinicOrderId }, known);
        if (partial) {
          keepStaged(staged.id, partial);
          continue;
        }
        const [result] = requestCancel(
          store,
          [known.id],
          `Cancelled by the clinic system (HL7 ORC-1 CA, batch ${batchId}, message ${staged.source.message ?? staged.position}).`,
        );
        if (result?.outcome === 'refused') {
          keepStaged(
            staged.id,
            stayingProblem(staged, 'cancel.refused', `The cancel cannot be made: ${result.reason}.`),
          );
          continue;
        }
        store.stagedOrders.markAccepted(staged.id, known.id);
        cancelled += 1;
        continue;
      }
      const identity = `${clinicCode}\u0000${clinicOrderId}`;
      if (known || queuedNow.has(identity)) {
        keepStaged(
          staged.id,
          stayingProblem(
            staged,
            'order.alreadyKnown',
            `Order '${clinicOrderId}' of clinic '${clinicCode}' was already accepted into the outbox${known ? ` (batch ${known.batchId})` : ' from this batch'}; it is not queued twice.`,
          ),
        );
        continue;
      }
      const request = wireRequest(staged, route, codeLists);
      if (!request.ok) {
        keepStaged(staged.id, ...request.problems);
        continue;
      }
      queuedNow.add(identity);
      toQueue.push({
        stagedId: staged.id,
        order: {
          clinicCode: request.clinicCode,
          clinicOrderId: request.clinicOrderId,
          route,
          requestBody: request.text,
          items: request.items,
          state: 'queued',
          // Recorded as checked, so the send skips its check: a v1 body was just written from an object that passed
          // the route's schema; any other is checked by the store now, once.
          ...(request.schemaChecked ? { bodySchemaChecked: true } : { checkBody: true }),
          ...(request.writtenFrom !== undefined ? { writtenFrom: request.writtenFrom } : {}),
        },
      });
    }
    enqueuePending();
    if (done) return { accepted, cancelled, after, done: true };
    if (from.maxOrders !== undefined && taken >= from.maxOrders) return { accepted, cancelled, after, done: false };
  }
}

/**
 * Batches staged before the staging tables existed kept their orders in `orders` as `ready`, with the request body
 * already final: those move to `queued` as they did then.
 */
function acceptLegacyReadyOrders(deps: StagingDeps, batchId: number): number {
  const { store } = deps;
  let moved = 0;
  for (let afterId = 0; ;) {
    const page = store.orders.list({ batchId, states: ['ready'], afterId, limit: PAGE });
    for (const order of page) {
      if (store.orders.findAccepted(order.environmentId, order.clinicCode, order.clinicOrderId)) {
        const message = `${order.clinicOrderId} of clinic ${order.clinicCode} is already in the outbox from another batch`;
        store.orders.transition(
          order.id,
          ['ready'],
          'rejected',
          { lastError: { kind: 'rejected', message, field: 'prescription.clinicOrderId' } },
          { actor: 'user', action: 'order.rejected', details: { errorMessage: message } },
        );
      } else if (
        store.orders.transition(order.id, ['ready'], 'queued', {}, { actor: 'user', action: 'order.accepted' })
      ) {
        moved += 1;
      }
    }
    if (page.length < PAGE) return moved;
    afterId = page[page.length - 1]!.id;
  }
}
