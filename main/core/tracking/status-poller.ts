import { silentLogger, type Logger } from '../platform/logger.js';
import type { OrderServiceClient } from '../service/client.js';
import type { ServiceError } from '../../../shared/errors.js';
import { saysNoSuchOrder } from '../service/no-such-order.js';
import type { OrderRecord, PolledOrder } from '../store/orders-repo.js';
import type { Store } from '../store/store.js';
import { AdaptiveSchedule, type AdaptiveIntervals } from './adaptive-schedule.js';
import { applyStatusRecord, describes, ownRecord } from './apply-status.js';
import { addDays, dateWindows, utcDate } from './date-windows.js';
import { listedDifferently, noteListedDifferently } from './listed-differently.js';
import { noteFound, noteNotFound } from './lost-at-service.js';
import { isDispatched, isTracked } from './tracked-orders.js';

export interface PollerTuning {
  /** Wait after a change (and the longest wait before new orders are noticed). */
  minIntervalMs: number;
  /** Longest wait for an order that has not moved in a while. */
  maxIntervalMs: number;
  /** Growth of an order's interval per look that found nothing new. */
  factor: number;
  /** Status requests in flight at once, per environment. */
  concurrency: number;
  /** Status requests started per second, per environment (the submitter needs most of the pace). */
  ratePerSecond: number;
  /** How often the date-range endpoint is asked for dispatch information in bulk. */
  dispatchRefreshMs: number;
  /** How far back the bulk refresh looks, in days. */
  lookbackDays: number;
  /** Rounds in a row ended by a 2xx that could not be read before the environment is reported (once per spell). */
  unreadableRounds: number;
}

export const DEFAULT_POLLER_TUNING: PollerTuning = {
  minIntervalMs: 60_000,
  maxIntervalMs: 16 * 60_000,
  factor: 2,
  concurrency: 2,
  ratePerSecond: 2,
  dispatchRefreshMs: 15 * 60_000,
  lookbackDays: 14,
  unreadableRounds: 3,
};

export interface PollerDeps {
  store: Store;
  clientFor(environmentId: string): OrderServiceClient;
  now?: () => Date;
  logger?: Logger;
  /** Orders whose status, dispatch information or state changed. */
  onOrdersChanged?(environmentId: string, orderIds: number[]): void;
  /** A status call came back 401 after the client's refresh: polling waits for `start()` after sign-in. */
  onSignInRequired?(environmentId: string): void;
  /**
   * An order's lookups now need a person (once per note): flagged as not found on repeated lookups
   * (lost-at-service.ts), or listed under other ids (listed-differently.ts).
   */
  onServiceNote?(environmentId: string, orderId: number): void;
  /**
   * Status lookups keep being answered with a 2xx that cannot be read (a gateway's sign-in page with a 200, a listing
   * cut off): told once per spell, after `unreadableRounds` rounds in a row; polling goes on at its backed-off pace.
   */
  onServiceUnreadable?(environmentId: string, message: string): void;
  /** The environment's own poll interval (its stored pace), used instead of `minIntervalMs` when given. */
  minIntervalFor?(environmentId: string): number | undefined;
}

export interface PollRound {
  /** Orders looked up one by one. */
  checked: number;
  /** Orders that changed (from single lookups and the bulk refresh). */
  changed: number[];
  /** Date-range calls made. */
  dateRangeCalls: number;
  /** Set when the round ended early. */
  stoppedBy?: 'sign-in-required' | 'service-unavailable';
  /**
   * With `service-unavailable`: why the round's last answer that came back could not be read, when one did (else
   * nothing answered). "The service did not answer" was said either way.
   */
  unreadable?: string;
  /** With `service-unavailable`: why the round's last lookup failed (no answer, a 5xx, unreadable), when one did. */
  failure?: string;
}

type Stop = NonNullable<PollRound['stoppedBy']>;

/** A run of rounds in a row whose answers could not be read: counted, and told once per spell. */
interface UnreadableSpell {
  rounds: number;
  lookups: number;
  last: string | undefined;
  told: boolean;
  inRound: boolean;
}

function noUnreadableSpell(): UnreadableSpell {
  return { rounds: 0, lookups: 0, last: undefined, told: false, inRound: false };
}

interface Tracker {
  environmentId: string;
  /** This environment's shortest wait (its own poll interval, else the tuning's). */
  minIntervalMs: number;
  schedule: AdaptiveSchedule<number>;
  timer: NodeJS.Timeout | undefined;
  running: Promise<PollRound> | undefined;
  /** Started by start() (timer-driven) rather than only used for manual refreshes. */
  active: boolean;
  signInRequired: boolean;
  /** Environment-wide wait after the service could not be reached; 0 when it answers. */
  backoffMs: number;
  /** The spell of answers that could not be read: rounds and lookups so far, the last one's reason, whether told. */
  unreadable: UnreadableSpell;
  /** This round's last failed lookup's reason (PollRound.failure). */
  failure: string | undefined;
  /** The longest `Retry-After` this round's failed lookups asked for (a 429's, a 503's). */
  retryAfterMs: number | undefined;
  nextDispatchRefreshAt: number;
  lastRequestAt: number;
  /** Aborted by stop(): a status lookup in flight ends at once instead of holding stop() up to its timeout. */
  lookups: AbortController;
}

const PAGE = 500;
const MIN_TICK_MS = 10;

/**
 * Tracks orders the service holds until they settle: each open order is looked up with the supplier-flow
 * endpoint (`status-with-clinic-code`) on an adaptive schedule, and the date-range endpoint refreshes dispatch
 * information in bulk. Every change lands in status history, on the order and in the audit log together (see
 * apply-status.ts). Polls that find nothing new write nothing, so the audit log does not fill with them; one that
 * finds no such order counts it on the order, and repeated ones flag it for a person (lost-at-service.ts); one that
 * lists it under other ids is noted instead (listed-differently.ts).
 *
 * Failures: a 401 stops the environment's polling until `start()` is called again (after sign-in); a network
 * or 5xx failure ends the round and backs the whole environment off (doubling up to maxIntervalMs), so an
 * outage costs one request per interval, not one per order.
 */
export class StatusPoller {
  readonly #deps: PollerDeps;
  readonly #tuning: PollerTuning;
  readonly #now: () => Date;
  readonly #log: Logger;
  readonly #trackers = new Map<string, Tracker>();
  #closed = false;

  constructor(deps: PollerDeps, tuning: Partial<PollerTuning> = {}) {
    this.#deps = deps;
    this.#tuning = { ...DEFAULT_POLLER_TUNING, ...tuning };
    this.#now = deps.now ?? (() => new Date());
    this.#log = deps.logger ?? silentLogger;
  }

  /** Starts (or, after a sign-in, resumes) polling an environment. */
  start(environmentId: string): void {
    if (this.#closed) return;
    const tracker = this.#tracker(environmentId);
    tracker.active = true;
    if (tracker.lookups.signal.aborted) tracker.lookups = new AbortController();
    tracker.signInRequired = false;
    tracker.backoffMs = 0;
    this.#wake(tracker, 0);
  }

  /**
   * The environment's poll interval changed (its stored pace, via `minIntervalFor`): the schedule takes the new
   * base at once (each order's wait scaled to it, see AdaptiveSchedule.retune) and the next wake-up is worked out
   * again; a round under way finishes first and then schedules by the new base.
   */
  applyPace(environmentId: string): void {
    const tracker = this.#trackers.get(environmentId);
    if (!tracker) return;
    const minIntervalMs = this.#deps.minIntervalFor?.(environmentId) ?? this.#tuning.minIntervalMs;
    if (minIntervalMs === tracker.minIntervalMs) return;
    tracker.minIntervalMs = minIntervalMs;
    tracker.schedule.retune(this.#intervalsFor(minIntervalMs));
    // An outage backoff is counted in the base's steps: keep it within the new bounds.
    if (tracker.backoffMs > 0)
      tracker.backoffMs = Math.min(tracker.backoffMs, Math.max(minIntervalMs, this.#tuning.maxIntervalMs));
    if (!tracker.running && tracker.timer !== undefined) this.#scheduleNext(tracker);
  }

  /** New orders were created or cancel commands sent: look soon instead of at the next tick. */
  notify(environmentId: string): void {
    const tracker = this.#trackers.get(environmentId);
    if (tracker?.active && !tracker.signInRequired && tracker.backoffMs === 0) this.#wake(tracker, 0);
  }

  async stop(environmentId: string): Promise<void> {
    const tracker = this.#trackers.get(environmentId);
    if (!tracker) return;
    tracker.active = false;
    clearTimeout(tracker.timer);
    tracker.timer = undefined;
    tracker.lookups.abort();
    await tracker.running?.catch(() => undefined);
  }

  /**
   * Looks up every open order now and refreshes dispatch information, whether or not polling was started (the
   * CLI's `status --refresh`). Resolves when the round is over.
   */
  async refresh(environmentId: string): Promise<PollRound> {
    const tracker = this.#tracker(environmentId);
    await tracker.running?.catch(() => undefined);
    if (tracker.lookups.signal.aborted) tracker.lookups = new AbortController();
    return this.#run(tracker, true);
  }

  /** The current wait of one order, for the UI and tests. */
  intervalOf(environmentId: string, orderId: number): number | undefined {
    return this.#trackers.get(environmentId)?.schedule.intervalOf(orderId);
  }

  isSignInRequired(environmentId: string): boolean {
    return this.#trackers.get(environmentId)?.signInRequired ?? false;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#trackers.keys()].map((id) => this.stop(id)));
  }

  #tracker(environmentId: string): Tracker {
    let tracker = this.#trackers.get(environmentId);
    if (!tracker) {
      const minIntervalMs = this.#deps.minIntervalFor?.(environmentId) ?? this.#tuning.minIntervalMs;
      tracker = {
        environmentId,
        minIntervalMs,
        schedule: new AdaptiveSchedule(this.#intervalsFor(minIntervalMs), () => this.#now().getTime()),
        timer: undefined,
        running: undefined,
        active: false,
        signInRequired: false,
        backoffMs: 0,
        unreadable: noUnreadableSpell(),
        failure: undefined,
        retryAfterMs: undefined,
        nextDispatchRefreshAt: 0,
        lastRequestAt: 0,
        lookups: new AbortController(),
      };
      this.#trackers.set(environmentId, tracker);
    }
    return tracker;
  }

  #intervalsFor(minIntervalMs: number): AdaptiveIntervals {
    return {
      minMs: minIntervalMs,
      maxMs: Math.max(minIntervalMs, this.#tuning.maxIntervalMs),
      factor: this.#tuning.factor,
    };
  }

  #wake(tracker: Tracker, delayMs: number): void {
    clearTimeout(tracker.timer);
    tracker.timer = setTimeout(() => {
      tracker.timer = undefined;
      if (tracker.running) return; // the round in flight reschedules when it ends
      void this.#run(tracker, false);
    }, delayMs);
    // The poller never keeps a process alive on its own (the CLI exits when its work is done).
    tracker.timer.unref();
  }

  #run(tracker: Tracker, all: boolean): Promise<PollRound> {
    const round = this.#round(tracker, all)
      .catch((error: unknown): PollRound => {
        this.#log.error('status round failed', {
          environmentId: tracker.environmentId,
          error: error instanceof Error ? error.message : 'unknown',
        });
        return { checked: 0, changed: [], dateRangeCalls: 0 };
      })
      .finally(() => {
        if (tracker.running === round) tracker.running = undefined;
        this.#scheduleNext(tracker);
      });
    tracker.running = round;
    return round;
  }

  #scheduleNext(tracker: Tracker): void {
    if (this.#closed || !tracker.active || tracker.signInRequired) return;
    const now = this.#now().getTime();
    let delay: number;
    if (tracker.backoffMs > 0) {
      delay = tracker.backoffMs;
    } else {
      const next = Math.min(tracker.schedule.nextDueAt() ?? Infinity, tracker.nextDispatchRefreshAt);
      // Never sleep longer than minIntervalMs: that is how newly created orders get noticed.
      delay = Math.min(Math.max(next - now, MIN_TICK_MS), tracker.minIntervalMs);
    }
    this.#wake(tracker, delay);
  }

  async #round(tracker: Tracker, all: boolean): Promise<PollRound> {
    const round: PollRound = { checked: 0, changed: [], dateRangeCalls: 0 };
    tracker.unreadable.inRound = false;
    tracker.failure = undefined;
    tracker.retryAfterMs = undefined;
    const { tracked, awaitingProcessed } = await this.#scan(tracker.environmentId);
    tracker.schedule.sync(tracked.keys());
    if (all) tracker.schedule.makeAllDue();
    const due = tracker.schedule.due();

    let next = 0;
    let stop: Stop | undefined;
    const worker = async () => {
      while (stop === undefined && next < due.length && (all || tracker.active)) {
        const orderId = due[next++]!;
        const outcome = await this.#pollOne(tracker, orderId);
        if (outcome === 'changed' || outcome === 'flagged') round.changed.push(orderId);
        if (outcome === 'changed' || outcome === 'unchanged') round.checked += 1;
        if (outcome === 'sign-in-required' || outcome === 'service-unavailable') stop ??= outcome;
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, this.#tuning.concurrency) }, worker));

    // Stopped meanwhile (its lookups were aborted): nothing more this round, not even the bulk refresh.
    if (!all && !tracker.active) return round;
    const now = this.#now().getTime();
    if (stop === undefined && (all || now >= tracker.nextDispatchRefreshAt)) {
      const bulk = await this.#refreshDispatch(tracker, [...tracked.values(), ...awaitingProcessed]);
      round.dateRangeCalls = bulk.calls;
      for (const id of bulk.changed) if (!round.changed.includes(id)) round.changed.push(id);
      stop = bulk.stoppedBy;
      if (stop === undefined) tracker.nextDispatchRefreshAt = now + this.#tuning.dispatchRefreshMs;
    }

    if (stop === 'sign-in-required') {
      tracker.signInRequired = true;
      this.#log.warn('status polling paused: sign-in required', { environmentId: tracker.environmentId });
      this.#deps.onSignInRequired?.(tracker.environmentId);
    } else if (stop === 'service-unavailable') {
      const { minIntervalMs } = tracker;
      const maxIntervalMs = Math.max(minIntervalMs, this.#tuning.maxIntervalMs);
      const backoffMs = Math.min(maxIntervalMs, tracker.backoffMs > 0 ? tracker.backoffMs * 2 : minIntervalMs);
      // Never sooner than the service asked (a 429's or 503's Retry-After, which the client caps at an hour): before,
      // the poller came back at its own backoff, from the base interval up, however long it was asked to wait.
      tracker.backoffMs = Math.max(backoffMs, tracker.retryAfterMs ?? 0);
      if (tracker.unreadable.inRound) {
        this.#unreadableRound(tracker);
        round.unreadable = (tracker.unreadable.last ?? 'unreadable').slice(0, 300);
      }
    } else {
      tracker.backoffMs = 0;
      // Answers were read again: a later spell is told again.
      if (stop === undefined) tracker.unreadable = noUnreadableSpell();
    }
    if (stop) round.stoppedBy = stop;
    if (stop === 'service-unavailable' && tracker.failure !== undefined) round.failure = tracker.failure;
    if (round.changed.length > 0) this.#deps.onOrdersChanged?.(tracker.environmentId, round.changed);
    return round;
  }

  /**
   * Open orders (by id), and dispatched ones still waiting to show as processed: read through the store's index of
   * the orders it watches (`orders.polled`), so a round's cost follows what is tracked, not the history.
   */
  async #scan(environmentId: string): Promise<{ tracked: Map<number, PolledOrder>; awaitingProcessed: PolledOrder[] }> {
    const tracked = new Map<number, PolledOrder>();
    const awaitingProcessed: PolledOrder[] = [];
    for (let afterId = 0; ;) {
      const page = this.#deps.store.orders.polled(environmentId, afterId, PAGE);
      for (const order of page) {
        if (order.pharmacyOrderId === null) continue;
        if (isTracked(order)) tracked.set(order.id, order);
        else if (order.remoteStatus === 'Prescription Dispatched') awaitingProcessed.push(order);
      }
      if (page.length < PAGE) break;
      afterId = page[page.length - 1]!.id;
      // A turn of the event loop between pages: with tens of thousands watched, reading them all at once held the
      // core (and every call it answers) for 100 ms and more. Paging by id sees each order once either way.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    return { tracked, awaitingProcessed };
  }

  async #pollOne(
    tracker: Tracker,
    orderId: number,
  ): Promise<'changed' | 'unchanged' | 'gone' | 'failed' | 'flagged' | Stop> {
    const order = this.#deps.store.orders.get(orderId);
    if (!order || order.pharmacyOrderId === null || !isTracked(order)) return 'gone';
    await this.#pace(tracker);
    const outcome = await this.#deps
      .clientFor(tracker.environmentId)
      .statusWithClinicCode(
        { clinicCode: order.clinicCode, orderId: order.pharmacyOrderId },
        { signal: tracker.lookups.signal },
      );
    if (!outcome.ok) {
      // Stopped meanwhile: nothing was learnt about the order, and nothing is recorded.
      if (outcome.error.kind === 'cancelled') return 'failed';
      if (outcome.error.kind === 'auth') return 'sign-in-required';
      if (outcome.error.kind === 'retryable' || outcome.error.kind === 'in-doubt') {
        this.#noteFailure(tracker, outcome.error);
        return 'service-unavailable';
      }
      this.#log.warn('status lookup refused', {
        environmentId: tracker.environmentId,
        orderId,
        status: outcome.error.status,
      });
      tracker.schedule.observed(orderId, false);
      // Only the service's own "no such order" counts (no-such-order.ts): a proxy's 404 page or a 403 says nothing.
      return saysNoSuchOrder(outcome.error) ? this.#notFound(order) : 'failed';
    }
    const record = ownRecord(outcome.value, order);
    if (!record) {
      tracker.schedule.observed(orderId, false);
      const listed = listedDifferently(outcome.value, order);
      if (listed) {
        // Not a miss: the service listed it, under ids this order cannot be sure are its own (listed-differently.ts).
        this.#log.warn('status lookup lists the order under other ids', {
          environmentId: tracker.environmentId,
          orderId,
        });
        if (!noteListedDifferently(this.#deps.store, order, listed)) return 'unchanged';
        this.#deps.onServiceNote?.(order.environmentId, order.id);
        return 'changed';
      }
      this.#log.warn('status lookup found no such order', { environmentId: tracker.environmentId, orderId });
      return this.#notFound(order);
    }
    const cleared = noteFound(this.#deps.store, order);
    const applied = applyStatusRecord(this.#deps.store, orderId, record, this.#now());
    const changed = Boolean(applied && (applied.changed || applied.stateChanged));
    // The pace follows the status alone: a cleared flag is news for the screens, not a reason to look sooner.
    tracker.schedule.observed(orderId, changed);
    return changed || cleared ? 'changed' : 'unchanged';
  }

  /**
   * A lookup that failed: its reason and any Retry-After kept for the round. A 2xx that could not be read is no
   * outage: something answers, and answers the same way when asked again. Backed off like one, but counted, so that
   * a spell of them is told instead of freezing every status with no one told.
   */
  #noteFailure(tracker: Tracker, error: ServiceError): void {
    tracker.failure = error.message.slice(0, 300);
    const asked = 'retryAfterMs' in error ? error.retryAfterMs : undefined;
    if (asked !== undefined) tracker.retryAfterMs = Math.max(tracker.retryAfterMs ?? 0, asked);
    if (error.kind !== 'retryable' || error.reason !== 'unreadable-response') return;
    tracker.unreadable.lookups += 1;
    tracker.unreadable.last = error.message;
    tracker.unreadable.inRound = true;
  }

  #unreadableRound(tracker: Tracker): void {
    const spell = tracker.unreadable;
    spell.rounds += 1;
    if (spell.told || spell.rounds < this.#tuning.unreadableRounds) return;
    spell.told = true;
    const message =
      `The Order Service's answers to ${spell.lookups} status lookups in a row could not be read ` +
      `(the last: ${(spell.last ?? 'unreadable').slice(0, 300)}): statuses are as last seen, and lookups go on.`;
    this.#log.warn('status lookups answered unreadably: told', { environmentId: tracker.environmentId });
    this.#deps.onServiceUnreadable?.(tracker.environmentId, message);
  }

  /** A lookup that did not find the order: counted, and the order flagged when that meets the rule. */
  #notFound(order: OrderRecord): 'failed' | 'flagged' {
    if (!noteNotFound(this.#deps.store, order, this.#now())) return 'failed';
    this.#log.warn('order not found at the service on repeated lookups: flagged', {
      environmentId: order.environmentId,
      orderId: order.id,
    });
    this.#deps.onServiceNote?.(order.environmentId, order.id);
    return 'flagged';
  }

  /**
   * Bulk refresh with the date-range endpoint (dates are dispatch dates, at most a 3-day span per call): from
   * the oldest open order's creation (or the oldest dispatch still waiting to show as processed) to today,
   * bounded by lookbackDays.
   */
  async #refreshDispatch(
    tracker: Tracker,
    orders: readonly PolledOrder[],
  ): Promise<{ calls: number; changed: number[]; stoppedBy?: Stop }> {
    const result: { calls: number; changed: number[]; stoppedBy?: Stop } = { calls: 0, changed: [] };
    if (orders.length === 0) return result;
    const today = utcDate(this.#now());
    const earliestAllowed = addDays(today, -this.#tuning.lookbackDays);
    let start = today;
    for (const order of orders) {
      // A dispatch date not written YYYY-MM-DD (a service's own format) counts from the creation, which came before.
      const dispatched = isDispatched(order.remoteStatus) && /^\d{4}-\d{2}-\d{2}/.test(order.dispatchDate ?? '');
      const from = dispatched ? order.dispatchDate! : order.createdAt;
      const day = from.slice(0, 10);
      if (/^\d{4}-\d{2}-\d{2}$/.test(day) && day < start) start = day;
    }
    if (start < earliestAllowed) start = earliestAllowed;

    const client = this.#deps.clientFor(tracker.environmentId);
    for (const window of dateWindows(start, today)) {
      if (tracker.lookups.signal.aborted) return result;
      await this.#pace(tracker);
      result.calls += 1;
      const outcome = await client.statusByDateRange(window);
      if (!outcome.ok) {
        if (outcome.error.kind === 'auth') result.stoppedBy = 'sign-in-required';
        else if (outcome.error.kind === 'rejected') {
          this.#log.warn('date-range status refused', {
            environmentId: tracker.environmentId,
            status: outcome.error.status,
          });
          continue;
        } else {
          this.#noteFailure(tracker, outcome.error);
          result.stoppedBy = 'service-unavailable';
        }
        return result;
      }
      for (const record of outcome.value) {
        const id = Number(record.pharmacyOrderId);
        if (!Number.isSafeInteger(id) || id < 1) continue;
        const order = this.#deps.store.orders.findByPharmacyOrderId(tracker.environmentId, id);
        if (!order) continue; // another client's order, or one this install never sent
        // Listed by the service as this order: it knows the order, whatever the single lookups said.
        const cleared = describes(record, order) && noteFound(this.#deps.store, order);
        const applied = applyStatusRecord(this.#deps.store, order.id, record, this.#now());
        const changed = Boolean(applied && (applied.changed || applied.stateChanged));
        if (changed || cleared) result.changed.push(order.id);
        if (changed) tracker.schedule.observed(order.id, true);
      }
    }
    return result;
  }

  /** Spaces request starts to `ratePerSecond` per environment. */
  async #pace(tracker: Tracker): Promise<void> {
    const gap = 1000 / this.#tuning.ratePerSecond;
    const now = performance.now();
    const at = Math.max(now, tracker.lastRequestAt + gap);
    tracker.lastRequestAt = at;
    if (at > now) await new Promise((resolve) => setTimeout(resolve, at - now));
  }
}
