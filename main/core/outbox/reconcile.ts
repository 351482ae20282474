import type { ServiceError } from '../../../shared/errors.js';
import { namesAnotherClinic, type StatusRecord } from '../../../shared/status.js';
import type { CallOutcome } from '../service/client.js';
import { saysNoSuchOrder } from '../service/no-such-order.js';
import type { AttemptRecord } from '../store/attempts-repo.js';
import type { OrderRecord } from '../store/orders-repo.js';
import { asAccessRefused } from './access-refusal.js';
import { orderAttention } from './attention.js';
import { retryDelayMs } from './backoff.js';
import { wasBareConflict } from './duplicate-order.js';
import { outcomeWithoutPatientEcho } from './patient-echo.js';
import { lookupClashDecision, otherHolder } from './pharmacy-id-clash.js';
import {
  abandoned,
  attemptOf,
  clip,
  countsAgainst,
  heldForAPerson,
  NONE,
  recordDecision,
  scheduleRetry,
  UP,
  verdictFrom,
  type Answer,
  type Decision,
  type Recorded,
  type StepContext,
} from './step.js';

/**
 * Settles one order in doubt (a send got no clear answer: none, an unreadable one, or a 5xx) by asking the service,
 * never by sending again: `status-with-clinic-code` with clinicCode + clinicOrderId.
 * - found → `created` with its pharmacy order id;
 * - not found (empty list, 404, or a 400 saying the order is not found) → back to `queued`, due now, still
 *   remembered as once in doubt (so a later "duplicate clinicOrderId" is read as "created"); counted towards giving
 *   up like a failed send; but a miss within `listingGraceMs` of the send, or after the service answered
 *   "duplicate" (it has it), may be a lookup lagging the write: stays `in_doubt`, asked again;
 * - the lookup failed → stays `in_doubt`, looked up again after a backoff. An order in doubt is never set aside
 *   unless the service says it does not have it: giving up on it could mean sending it twice. Lookups the service
 *   answers but refuses, or answers with a 2xx that cannot be read, are held for a person after `maxAttempts`.
 * - cut short by the outbox's stop → stays `in_doubt`, nothing recorded (the next start looks it up).
 */
export async function lookUpInDoubt(ctx: StepContext, order: OrderRecord): Promise<Answer> {
  const startedAt = ctx.now();
  // Its message is stored: without the patient values a service may quote back (patient-echo.ts).
  const outcome = outcomeWithoutPatientEcho(
    await ctx.client.statusWithClinicCode(
      { clinicCode: order.clinicCode, clinicOrderId: order.clinicOrderId },
      { signal: ctx.signal },
    ),
    order.requestBody,
  );
  if (abandoned(outcome)) return { verdict: NONE, settle: () => ({}) };
  return {
    verdict: outcome.ok ? UP : verdictFrom(outcome.error),
    settle: () => settleLookup(ctx, order, startedAt, outcome),
  };
}

function settleLookup(
  ctx: StepContext,
  order: OrderRecord,
  startedAt: Date,
  outcome: CallOutcome<StatusRecord[]>,
): Recorded {
  const { store } = ctx;
  if (outcome.ok) {
    // Another clinic's order under the same clinic order id (a service that ignored the clinic filter) is not
    // listed as far as this order is concerned: taking its id marked an order created that was never sent.
    const listed = outcome.value.filter((record) => !namesAnotherClinic(record, order.clinicCode));
    const pharmacyOrderId = pharmacyIdIn(listed, order.clinicOrderId);
    const holder = pharmacyOrderId === null ? undefined : otherHolder(ctx, order, pharmacyOrderId);
    if (pharmacyOrderId !== null && holder) {
      const attempt = attemptOf(order.id, 'lookup', startedAt, outcome, String(pharmacyOrderId));
      const attention = recordDecision(ctx, attempt, () => lookupClashDecision(order, pharmacyOrderId, holder));
      return attention ? { attention } : {};
    }
    if (pharmacyOrderId !== null) {
      const remoteId = String(pharmacyOrderId);
      const others = otherIdsNamed(listed, order.clinicOrderId, remoteId);
      const attempt = {
        ...attemptOf(order.id, 'lookup', startedAt, outcome, remoteId),
        ...(others.length > 0
          ? {
              errorMessage: clip(
                `the service lists ${others.length + 1} orders under this clinic order id (pharmacy order ids ${[remoteId, ...others].join(', ')}): taken as ${remoteId}, the first; the others may be duplicates to cancel at the service`,
              ),
            }
          : {}),
      };
      store.attempts.recordWithTransition(attempt, () => ({
        from: ['in_doubt'],
        to: 'created',
        patch: { pharmacyOrderId, lastError: null, nextAttemptAt: null },
        action: 'order.reconciled',
      }));
      return { reached: true };
    }
    const unkeepable = unkeepableIdIn(listed, order.clinicOrderId);
    if (unkeepable !== undefined) {
      const attention = recordDecision(
        ctx,
        attemptOf(order.id, 'lookup', startedAt, outcome, unkeepable.slice(0, 64)),
        () => heldAsCreatedElsewhere(order, unkeepable),
      );
      return attention ? { attention } : {};
    }
    // Records each naming another clinic order id are other orders (a service that ignored the clinicOrderId
    // filter lists the clinic's orders): this one is not among them. Before, it stayed in doubt for good, and an order
    // whose create never arrived was never sent. If it did arrive, the resend is answered "duplicate" (unique per
    // clinic), never created twice.
    const mayBeThis = listed.filter(
      (record) => record.clinicOrderId == null || record.clinicOrderId === order.clinicOrderId,
    );
    if (mayBeThis.length > 0) {
      // Listed, but without a usable id, or without saying which record is this order: the service may have it;
      // ask again later rather than send it twice.
      return listedUnsaid(ctx, order, attemptOf(order.id, 'lookup', startedAt, outcome));
    }
    if (serviceSaidItHasIt(ctx, order)) {
      return waitForListing(ctx, order, attemptOf(order.id, 'lookup', startedAt, outcome), nearMatch(listed, order));
    }
    const early = askAgainIfSoonAfterSend(ctx, order, attemptOf(order.id, 'lookup', startedAt, outcome));
    if (early) return early;
    const near = releasedSinceSend(ctx, order) ? undefined : nearMatch(listed, order);
    const attention = near
      ? recordDecision(
          ctx,
          { ...attemptOf(order.id, 'lookup', startedAt, outcome), errorMessage: 'not found at the service as it is' },
          () => heldForNearMatch(order, near),
        )
      : recordDecision(
          ctx,
          { ...attemptOf(order.id, 'lookup', startedAt, outcome), errorMessage: 'not found at the service' },
          () => notFound(ctx, order),
        );
    return attention ? { attention } : {};
  }

  // A 403 refusing every request says nothing about the order: it stays in doubt, not counted as a refused lookup.
  const failed = asAccessRefused(ctx, order.id, outcome) ?? outcome;
  const { error } = failed;
  if (saysNoSuchOrder(error)) {
    if (serviceSaidItHasIt(ctx, order)) {
      return waitForListing(ctx, order, attemptOf(order.id, 'lookup', startedAt, failed));
    }
    const early = askAgainIfSoonAfterSend(ctx, order, attemptOf(order.id, 'lookup', startedAt, failed));
    if (early) return early;
    const attention = recordDecision(ctx, attemptOf(order.id, 'lookup', startedAt, failed), () => notFound(ctx, order));
    return attention ? { attention } : {};
  }
  if (error.kind === 'rejected' || unreadable2xx(error)) {
    const lookups = refusedLookupsSinceSend(ctx, order);
    if (lookups >= ctx.tuning.maxAttempts) {
      const attention = recordDecision(ctx, attemptOf(order.id, 'lookup', startedAt, failed), () =>
        heldAfterRefusedLookups(order, error, lookups),
      );
      return attention ? { attention } : {};
    }
  }
  store.inTransaction(() => {
    store.attempts.record(attemptOf(order.id, 'lookup', startedAt, failed));
    keepInDoubt(ctx, order, error);
  });
  return {};
}

/**
 * Whether the service's last answer to a create of this order said it has it already: an order in doubt whose
 * latest create was refused got there only by the duplicate rule ("duplicate clinicOrderId" after a send that may
 * have acted; any other refusal ends `rejected` or `held`), unless a person released it since (a held order's
 * refusal, a 403 for a locked-out patient among them, says nothing of the kind).
 */
function serviceSaidItHasIt(ctx: StepContext, order: OrderRecord): boolean {
  const lastCreate = ctx.store.attempts.list(order.id).findLast((attempt) => attempt.operation === 'create');
  return lastCreate?.outcome === 'rejected' && !releasedSinceSend(ctx, order);
}

/**
 * The service said "duplicate" (it has the order) and its lookup does not list it yet: a status read that lags
 * the write (eventual consistency). Sending again would only be answered "duplicate" once more, at full speed, and
 * count towards giving up on an order that exists; so the order stays in doubt and is asked about again, at a
 * backoff over the misses since that answer, never before the grace a slow write needs, and never given up on.
 * After a bare 409 (which never said so) the misses are believed once there are `maxAttempts` of them: held for a
 * person, not sent again (heldAfterConflict).
 */
function waitForListing(
  ctx: StepContext,
  order: OrderRecord,
  attempt: ReturnType<typeof attemptOf>,
  near?: StatusRecord,
): Recorded {
  const { store } = ctx;
  const history = store.attempts.list(order.id);
  const since = history.findLastIndex((entry) => entry.operation === 'create');
  // This lookup's miss included: it is recorded below.
  const misses = lookupsSinceSend(ctx, order, history).length + 1;
  if (wasBareConflict(history[since]!) && misses >= ctx.tuning.maxAttempts) {
    const attention = recordDecision(ctx, { ...attempt, errorMessage: 'not found at the service' }, () =>
      heldAfterConflict(order, history[since]!, misses),
    );
    return attention ? { attention } : {};
  }
  const listedAs = near
    ? ` (it lists "${clip(near.clinicOrderId ?? '', 64)}", pharmacy order id ${clip(near.pharmacyOrderId ?? 'none', 32)}, which differs from this order's only in case or spaces)`
    : '';
  if (misses >= 2 * ctx.tuning.maxAttempts) {
    // Said to have it, never listed: asking on would go on for good with no one told (fault round 2).
    const message =
      `the service says it has this order, but its lookup has not listed it in ${misses} lookups${listedAs}: ` +
      'it is not sent again; check at the service, then resend or cancel it';
    const attention = recordDecision(ctx, { ...attempt, errorMessage: 'not found at the service' }, () =>
      heldForAPerson(order, message),
    );
    return attention ? { attention } : {};
  }
  const message = `the service says it has this order, but its lookup does not list it yet${listedAs}: asking again later`;
  store.inTransaction(() => {
    store.attempts.record({ ...attempt, errorMessage: message });
    const delay = Math.max(ctx.tuning.reconcileDelayMs, retryDelayMs(Math.max(0, misses - 1), ctx.tuning, ctx.random));
    store.outboxQueue.reschedule(order.id, 'in_doubt', new Date(ctx.now().getTime() + delay), {
      kind: 'in-doubt',
      message,
    });
  });
  return {};
}

const LISTED_UNSAID =
  'the service lists orders without saying which (or with no pharmacy order id); asking again later';

/**
 * The lookup lists records that may be this order but gives no usable pharmacy id or does not say which is it: the
 * service may have the order, so it is not sent again. Asked again at a backoff over such lookups since the send
 * (never under `reconcileDelayMs`); after twice `maxAttempts` of them, held for a person. Before, each lookup was
 * recorded as answered, so the backoff never grew: the order was asked about about once a second for good, and
 * no one was told (a service writing its records' keys in another case lists them with every field empty).
 */
function listedUnsaid(ctx: StepContext, order: OrderRecord, attempt: ReturnType<typeof attemptOf>): Recorded {
  const { store } = ctx;
  // This lookup included: it is recorded below.
  const listings =
    lookupsSinceSend(ctx, order, store.attempts.list(order.id)).filter((entry) => entry.errorMessage === LISTED_UNSAID)
      .length + 1;
  if (listings >= 2 * ctx.tuning.maxAttempts) {
    const message =
      `the service listed orders under this clinic order id without a pharmacy order id, or without saying which is ` +
      `this one, in ${listings} lookups: it may have it, so it is not sent again; check at the service, then resend or cancel it`;
    const attention = recordDecision(ctx, { ...attempt, errorMessage: LISTED_UNSAID }, () =>
      heldForAPerson(order, message),
    );
    return attention ? { attention } : {};
  }
  store.inTransaction(() => {
    store.attempts.record({ ...attempt, errorMessage: LISTED_UNSAID });
    const delay = Math.max(ctx.tuning.reconcileDelayMs, retryDelayMs(listings - 1, ctx.tuning, ctx.random));
    store.outboxQueue.reschedule(order.id, 'in_doubt', new Date(ctx.now().getTime() + delay), {
      kind: 'in-doubt',
      message: LISTED_UNSAID,
    });
  });
  return {};
}

/**
 * A miss sooner than `listingGraceMs` after the order's last send may be a lookup lagging the write: sending again
 * then would create the order twice at a service that does not refuse a clinic order id it already has. So the
 * order stays in doubt and is asked about again once the grace is over; a miss after that is believed. The send
 * ended when its create's record says (its start plus its latency), or, for a send a stopped process cut off (it
 * has no record), by the time this outbox recovered it. Before, one miss two seconds after a lost answer had the
 * order sent again.
 */
function askAgainIfSoonAfterSend(
  ctx: StepContext,
  order: OrderRecord,
  attempt: ReturnType<typeof attemptOf>,
): Recorded | undefined {
  const { store } = ctx;
  const lastCreate = store.attempts.list(order.id).findLast((entry) => entry.operation === 'create');
  const sentBy = Math.max(
    lastCreate ? Date.parse(lastCreate.startedAt) + (lastCreate.latencyMs ?? 0) : 0,
    ctx.recoveredAtMs ?? 0,
  );
  const believedFrom = sentBy + ctx.tuning.listingGraceMs;
  if (attempt.startedAt.getTime() >= believedFrom) return undefined;
  const message = 'not listed by the service yet, soon after it was sent (a lookup may lag the write): asking again';
  store.inTransaction(() => {
    store.attempts.record({ ...attempt, errorMessage: message });
    const at = new Date(Math.max(believedFrom, ctx.now().getTime()));
    store.outboxQueue.reschedule(order.id, 'in_doubt', at, { kind: 'in-doubt', message });
  });
  return {};
}

/**
 * A refusal that may be the duplicate's (a bare 409, a 400 or 422 naming only the order id) answered a resend and
 * the lookup has missed the order `misses` times since: the service may hold it (a resend would be refused again,
 * or make it twice) or never had it. Held for a person, saying so.
 */
function heldAfterConflict(order: OrderRecord, conflict: AttemptRecord, misses: number): Decision {
  const said = conflict.errorMessage ? ` (${clip(conflict.errorMessage, 200)})` : '';
  const answered = conflict.httpStatus === 409 ? '409 Conflict' : `${conflict.httpStatus} refusing the order`;
  return heldForAPerson(
    order,
    `the service answered ${answered} to a resend${said} and its lookup has not listed this order in ${misses} ` +
      'lookups: it is not sent again, as the service may have it; check at the service, then resend or cancel it',
  );
}

/**
 * The pharmacy order id of this clinic order in a lookup's answer, if it is there. Records naming this clinic
 * order id come first (the smallest id if there are several). Only when none does, records naming no clinic
 * order id (every field is nullable) are taken as this order, and only if they agree on one id: a service that
 * ignored the filter lists the clinic's other orders too, and adopting one of their ids would mark this order
 * created when it may not be (the order stays in doubt and is asked about again).
 */
export function pharmacyIdIn(records: readonly StatusRecord[], clinicOrderId: string): number | null {
  const usable = (record: StatusRecord) =>
    record.pharmacyOrderId !== null && /^\d{1,15}$/.test(record.pharmacyOrderId) ? Number(record.pharmacyOrderId) : 0;
  const named = records
    .filter((record) => record.clinicOrderId === clinicOrderId)
    .map(usable)
    .filter((id) => id > 0);
  if (named.length > 0) return Math.min(...named);
  const unnamed = new Set(
    records
      .filter((record) => record.clinicOrderId === null || record.clinicOrderId === undefined)
      .map(usable)
      .filter((id) => id > 0),
  );
  return unnamed.size === 1 ? [...unnamed][0]! : null;
}

/**
 * A record naming this order's clinic order id but for case or spaces (a service that normalises them): not taken as
 * this order (it could be another, and this one would then never be sent), but said, so a person can tell.
 */
function nearMatch(records: readonly StatusRecord[], order: OrderRecord): StatusRecord | undefined {
  const loose = (id: string) => id.trim().toLowerCase();
  return records.find(
    (record) => record.clinicOrderId != null && loose(record.clinicOrderId) === loose(order.clinicOrderId),
  );
}

/**
 * The lookup lists this order's clinic order id only in another case or spacing, after the grace: the service may
 * have it under an id it normalised (sending it again would make a second order at a service that does not refuse
 * it), or that is another order. Before, the miss was believed and the order sent again; now a person decides, and
 * a release ("Send again now": not this order) has it sent (releasedSinceSend).
 */
function heldForNearMatch(order: OrderRecord, near: StatusRecord): Decision {
  return heldForAPerson(
    order,
    `the service does not list this order as it is, but lists "${clip(near.clinicOrderId ?? '', 64)}" (pharmacy ` +
      `order id ${clip(near.pharmacyOrderId ?? 'none', 32)}), which differs only in case or spaces: it may be this ` +
      'order. It is not sent again; check at the service, then cancel it, or send it again if that is another order',
  );
}

/** Whether a person released the order since its last send (outbox.ts `retryNow`): their decision stands. */
function releasedSinceSend(ctx: StepContext, order: OrderRecord): boolean {
  const releasedAt = ctx.store.outboxQueue.retryMemory(order.id)?.releasedAt;
  if (!releasedAt) return false;
  const lastCreate = ctx.store.attempts.list(order.id).findLast((attempt) => attempt.operation === 'create');
  return !lastCreate || Date.parse(releasedAt) >= Date.parse(lastCreate.startedAt);
}

/**
 * The other pharmacy ids listed under this clinic order id (at most five): a service that created it more than once
 * (another system's order, or a service not keeping clinic order ids unique). The order takes the first; the admin
 * is told of the rest on the lookup's record, where they went unsaid.
 */
function otherIdsNamed(records: readonly StatusRecord[], clinicOrderId: string, taken: string): string[] {
  const ids = records
    .filter((record) => record.clinicOrderId === clinicOrderId && record.pharmacyOrderId)
    .map((record) => record.pharmacyOrderId!)
    .filter((id) => id !== taken);
  return [...new Set(ids)].slice(0, 5).map((id) => (id.length > 32 ? `${id.slice(0, 32)}…` : id));
}

/**
 * The pharmacy order id of a record naming this clinic order id that this version cannot keep (the store holds ids
 * of at most 15 digits: a JavaScript number): longer digits (a 64-bit or snowflake id past 2^53) or not digits at all.
 */
function unkeepableIdIn(records: readonly StatusRecord[], clinicOrderId: string): string | undefined {
  return (
    records.find(
      (record) =>
        record.clinicOrderId === clinicOrderId &&
        record.pharmacyOrderId !== null &&
        record.pharmacyOrderId.trim() !== '' &&
        !/^\d{1,15}$/.test(record.pharmacyOrderId),
    )?.pharmacyOrderId ?? undefined
  );
}

/**
 * The service has the order, under an id this version cannot keep: it must never be sent again, and asking again
 * cannot settle it (before, it was looked up for good, "lists orders without saying which"). Held, saying so, for a
 * person: tracking and cancelling it from here need the id kept as text.
 */
function heldAsCreatedElsewhere(order: OrderRecord, pharmacyOrderId: string): Decision {
  const shown = pharmacyOrderId.length > 64 ? `${pharmacyOrderId.slice(0, 64)}…` : pharmacyOrderId;
  return heldForAPerson(
    order,
    `the service has this order, as pharmacy order id "${shown}", which this version cannot keep (it keeps ids of up to 15 digits): it is not sent again; track or cancel it at the service`,
  );
}

/**
 * Not at the service: send it again now, unless it has failed too often while the service works. The send that
 * got no clear answer failed: it counts if others got through meanwhile, or if the service answered it with a 5xx
 * (the lookup just answered too, so the service is up and fails only this order: a poison order failing alone).
 * A send that got no answer at all counts only the first way: alone, that looks exactly like an outage.
 */
function notFound(ctx: StepContext, order: OrderRecord): Decision {
  const { store } = ctx;
  const history = store.attempts.list(order.id);
  const lastCreate = history.findLast((attempt) => attempt.operation === 'create');
  const answered5xx = (lastCreate?.httpStatus ?? 0) >= 500;
  // A 2xx that was no create's answer (a firewall's 200 block page, a gateway's own body) and then not found: the
  // service answers and fails only this order, as with a 5xx. Before, a lone order so answered was sent again every
  // half minute for good, no one told.
  const answeredUnread =
    lastCreate?.outcome === 'in-doubt' && (lastCreate.httpStatus ?? 0) >= 200 && (lastCreate.httpStatus ?? 0) < 300;
  const failures =
    answered5xx || answeredUnread || countsAgainst(ctx, order.id, history)
      ? store.outboxQueue.countFailure(order.id)
      : (store.outboxQueue.retryMemory(order.id)?.failures ?? 0);
  if (failures >= ctx.tuning.maxAttempts) {
    const [kind, message] = answered5xx
      ? ([
          'retryable',
          `gave up after ${failures} attempts: ${lastCreate?.errorMessage ?? 'the service failed'}`,
        ] as const)
      : answeredUnread
        ? ([
            'in-doubt',
            `gave up after ${failures} attempts, each answered without an order id and then not found at the service (the last: ${clip(lastCreate.errorMessage ?? 'an unreadable answer', 300)})`,
          ] as const)
        : (['in-doubt', `gave up after ${failures} attempts: sent, unanswered, and not found at the service`] as const);
    return {
      transition: {
        from: ['in_doubt'],
        to: 'held',
        patch: { lastError: { kind, message }, nextAttemptAt: null },
        action: 'order.set-aside',
        details: { errorKind: kind, errorMessage: clip(message) },
      },
      attention: orderAttention(order, 'gave-up', message),
    };
  }
  const message = answered5xx
    ? 'not found at the service after a failed send: sending it again'
    : answeredUnread
      ? 'not found at the service after a send answered without an order id: sending it again'
      : 'not found at the service after an unanswered send: sending it again';
  return {
    transition: {
      from: ['in_doubt'],
      to: 'queued',
      patch: { lastError: { kind: 'in-doubt', message }, nextAttemptAt: null },
      action: 'order.not-found',
      details: { errorMessage: message },
    },
  };
}

function keepInDoubt(ctx: StepContext, order: OrderRecord, error: ServiceError): void {
  // A sign-in problem waits for the sign-in (which pauses the environment), not for a backoff.
  const at = error.kind === 'auth' ? null : scheduleRetry(ctx, order.id, 'lookup', error).at;
  const message = clip(`still in doubt: the lookup failed (${error.message})`);
  ctx.store.outboxQueue.reschedule(order.id, 'in_doubt', at, { kind: 'in-doubt', message });
}

/**
 * A lookup answered with a 2xx that could not be read (a gateway's sign-in page with a 200, a listing cut off): the
 * service, or something in front of it, answers, so it is no outage, and asking again is answered the same way.
 */
function unreadable2xx(error: ServiceError): boolean {
  return error.kind === 'retryable' && error.reason === 'unreadable-response';
}

/**
 * Lookups since the order's last send that the service answered and refused (a 403, a proxy's 404 page, a 400 about
 * something else) or answered with a 2xx it could not read, this one included: asking again goes on through an
 * outage (no answer, a 5xx), but a service that answers every lookup so kept the order in doubt for good, asked
 * about every five minutes, with no one told. After `maxAttempts` of them it is held for a person.
 */
function refusedLookupsSinceSend(ctx: StepContext, order: OrderRecord): number {
  const history = ctx.store.attempts.list(order.id);
  const unusable = (entry: AttemptRecord) =>
    entry.outcome === 'rejected' ||
    (entry.outcome === 'retryable' && (entry.httpStatus ?? 0) >= 200 && (entry.httpStatus ?? 0) < 300);
  return lookupsSinceSend(ctx, order, history).filter(unusable).length + 1;
}

/**
 * The lookups recorded since the order's last create, or since a person released it to be looked up first if that
 * came later: the lookups that held it must not hold it again at once (outbox.ts `retryNow`).
 */
function lookupsSinceSend(ctx: StepContext, order: OrderRecord, history: readonly AttemptRecord[]): AttemptRecord[] {
  const since = history.findLastIndex((entry) => entry.operation === 'create');
  const releasedAt = ctx.store.outboxQueue.retryMemory(order.id)?.releasedAt;
  const fromMs = releasedAt ? Date.parse(releasedAt) : -Infinity;
  return history
    .slice(since + 1)
    .filter((entry) => entry.operation === 'lookup' && Date.parse(entry.startedAt) >= fromMs);
}

function heldAfterRefusedLookups(order: OrderRecord, error: ServiceError, lookups: number): Decision {
  const answered =
    error.kind === 'rejected'
      ? `refused ${lookups} lookups of this order since it was sent`
      : `answered ${lookups} lookups of this order since it was sent with answers that could not be read, or refused them`;
  return heldForAPerson(
    order,
    `the service ${answered} (the last: ${clip(error.message, 200)}): ` +
      'it is not sent again, as the service may have it; check at the service, then resend or cancel it',
  );
}
