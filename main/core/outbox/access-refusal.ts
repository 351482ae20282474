import type { ServiceError } from '../../../shared/errors.js';
import type { CallOutcome } from '../service/client.js';
import { clip, type StepContext } from './step.js';

/**
 * A plain 403 (no Bearer challenge, after the client's one renewal) is either the service refusing one order (the
 * contract's "the patient is locked out", written in its envelope) or the environment refusing every request:
 * something in front of the service (a web application firewall, an IP allow-list, a gateway that revoked this
 * client) or the service refusing this client. Taking every such 403 as the order's held a whole queue, one order
 * after another, each with a wrong reason and none resuming by itself. This file tells the two apart; the
 * environment's refusal is an outage of the breaker (service-health.ts), with its own message.
 */

type Work = { id: number; kind: 'create' | 'lookup' | 'cancel' };

/** What the environment's outage says, and what each order that met it keeps as its last error. */
export function accessRefusedMessage(said: string): string {
  return (
    'the service (or something in front of it) refuses every request with 403: access from this computer may be ' +
    "blocked (a firewall, an IP allow-list, or this client's access withdrawn); orders wait and go out by themselves " +
    `once a request gets through (it said: ${clip(said, 300)})`
  );
}

/**
 * Judges plain 403s as they arrive, and remembers how each was taken for the step that records it. Pure bookkeeping
 * (no store, no clock): ServiceHealth feeds it and acts on what it says.
 */
export class ForbiddenAnswers {
  readonly #threshold: () => number;
  /** Each order's latest plain 403 in this run: when it came, and whether it was taken as the environment's. */
  readonly #latest = new Map<number, { atMs: number; environment: boolean }>();
  /**
   * Orders that drew a plain 403 since a request last got through. `first`: its first in this run (only firsts add
   * up to a refusal: orders that met one before must not refuse the environment again by themselves, or a queue of
   * locked-out patients would pause it for good). `provisional`: taken as the order's own for now, and taken back if
   * the streak goes on to refuse the environment (a create held for it is then put back in the queue).
   */
  readonly #streak = new Map<number, { first: boolean; provisional: boolean; create: boolean }>();

  /** `threshold`: how many different orders' service-written 403s in a row refuse the environment (read each time). */
  constructor(threshold: () => number) {
    this.#threshold = threshold;
  }

  /**
   * How a plain 403 is taken, in this order:
   * 1. the order's own, when it drew one before, requests of other orders got through since, and no other order
   *    drew one since then: the environment lets requests through, so this one is refused for itself;
   * 2. the environment's, when it is refused already (a probe, or a request in flight), when the service did not
   *    write it (a web page, a bare "Forbidden", an empty body: something in front of it), or when it makes
   *    `threshold` different orders refused with nothing getting through in between; the streak's answers taken as
   *    their orders' own for now are taken back, and `requeue` names the creates held for them;
   * 3. else the order's own, for now.
   */
  judge(
    work: Work,
    answer: { serviceWritten: boolean; refusedNow: boolean; nowMs: number },
    othersAnsweredSince: (orderId: number, sinceMs: number) => boolean,
  ): { environment: boolean; requeue: number[] } {
    const { nowMs } = answer;
    const previous = this.#latest.get(work.id);
    const othersRefused = [...this.#streak.keys()].some((id) => id !== work.id);
    const create = work.kind === 'create';
    if (previous && !othersRefused && othersAnsweredSince(work.id, previous.atMs)) {
      this.#latest.set(work.id, { atMs: nowMs, environment: false });
      this.#streak.set(work.id, { first: false, provisional: false, create });
      return { environment: false, requeue: [] };
    }
    const first = previous === undefined || this.#streak.get(work.id)?.first === true;
    this.#streak.set(work.id, { first, provisional: false, create });
    const firsts = [...this.#streak.values()].filter((entry) => entry.first).length;
    if (!answer.refusedNow && answer.serviceWritten && firsts < this.#threshold()) {
      this.#streak.set(work.id, { first, provisional: true, create });
      this.#latest.set(work.id, { atMs: nowMs, environment: false });
      return { environment: false, requeue: [] };
    }
    const requeue: number[] = [];
    for (const [id, entry] of this.#streak) {
      if (!entry.provisional) continue;
      entry.provisional = false;
      const taken = this.#latest.get(id);
      if (taken) taken.environment = true;
      if (entry.create) requeue.push(id);
    }
    this.#latest.set(work.id, { atMs: nowMs, environment: true });
    return { environment: true, requeue };
  }

  /** A read made to judge an order's 403 got through (readSameOrder): the streak ends; the order's 403 is judged next. */
  readGotThrough(): void {
    this.#streak.clear();
  }

  /** A request got through (any answer but a plain 403): the streak ends, and that order is not refused now. */
  gotThrough(orderId: number): void {
    this.#streak.clear();
    this.#latest.delete(orderId);
  }

  /** Whether the order's latest plain 403 is taken as the environment refusing every request (not this order). */
  byEnvironment(orderId: number): boolean {
    return this.#latest.get(orderId)?.environment === true;
  }
}

/**
 * A create's 403 in the service's own envelope, with no other order answered since it was sent: one read of the
 * same order (its lookup, which no patient rule refuses) tells the environment's refusal from the order's. Without
 * it, a queue smaller than `breakerThreshold` (a small clinic's one to four orders) under a service refusing this
 * client had each order held as a locked-out patient, and a run of locked-out patients stopped sending. `refused`:
 * the read drew a 403 too; `through`: any other answer (listed, not found, a 400); `unknown`: no answer (an outage,
 * the stop) or `not-needed` (another order was answered since: requests get through), and the 403 is judged as
 * before. The read changes nothing and is not an attempt of the order's.
 */
export async function readSameOrder(
  ctx: StepContext,
  order: { id: number; clinicCode: string; clinicOrderId: string },
  sentAtMs: number,
): Promise<SameOrderRead> {
  if (ctx.othersAnsweredSince(order.id, sentAtMs)) return 'not-needed';
  const read = await ctx.client.statusWithClinicCode(
    { clinicCode: order.clinicCode, clinicOrderId: order.clinicOrderId },
    { signal: ctx.signal },
  );
  if (read.ok) return 'through';
  if (read.error.kind !== 'rejected') return 'unknown';
  return read.error.status === 403 ? 'refused' : 'through';
}

type SameOrderRead = 'refused' | 'through' | 'unknown' | 'not-needed';

type Failed<T> = Extract<CallOutcome<T>, { ok: false }>;

/**
 * A create's 403 whose read of the same order got through, as it is recorded once the create has gone again
 * (submitter.ts): a wait, since nothing was refused for the order yet, and the next answer decides.
 */
export function sentAgain<T>(outcome: CallOutcome<T>): CallOutcome<T> {
  if (outcome.ok) return outcome;
  const error: ServiceError = {
    kind: 'retryable',
    reason: 'server',
    status: 403,
    message:
      'refused with 403, yet a read of the same order got through just after (what refused it may have let ' +
      `requests through since): sent once more, as a 403 is not acted on (it said: ${clip(outcome.error.message, 300)})`,
  };
  return { ...outcome, error };
}

/**
 * A plain 403 that the environment's refusal explains, as it is recorded: retryable, saying so, since nothing was
 * refused for the order (so it is neither held nor counted, and is no refused lookup or cancel). Undefined for any
 * other outcome, which is recorded as it came.
 */
export function asAccessRefused<T>(ctx: StepContext, orderId: number, outcome: CallOutcome<T>): Failed<T> | undefined {
  if (outcome.ok || outcome.error.kind !== 'rejected' || outcome.error.status !== 403) return undefined;
  if (!ctx.forbiddenByEnvironment(orderId)) return undefined;
  const error: ServiceError = {
    kind: 'retryable',
    reason: 'server',
    status: 403,
    message: accessRefusedMessage(outcome.error.message),
  };
  return { ...outcome, error };
}

/**
 * Orders this run held for a 403 that turned out to be part of a refusal of every request go back to `queued`, due
 * now, each with its own audit entry. Only an order still held with that create's 403 as its latest attempt: one a
 * person has moved on since, or held for anything else, stays as it is. A 403 means the create was not acted on;
 * an order once in doubt keeps that memory, so a later "duplicate" still reads as "created".
 */
export function requeueHeld(ctx: StepContext, orderIds: readonly number[]): void {
  const { store } = ctx;
  for (const orderId of orderIds) {
    const latest = store.attempts.list(orderId).at(-1);
    if (latest?.operation !== 'create' || latest.httpStatus !== 403 || latest.outcome !== 'rejected') continue;
    const message = accessRefusedMessage(latest.errorMessage ?? 'Forbidden');
    store.orders.transition(
      orderId,
      ['held'],
      'queued',
      { lastError: { kind: 'retryable', message }, nextAttemptAt: ctx.now() },
      {
        actor: 'submitter',
        action: 'order.awaiting-access',
        details: { errorKind: 'retryable', errorMessage: clip(message), httpStatus: 403 },
      },
    );
  }
}
