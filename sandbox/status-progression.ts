import { randomInt } from 'node:crypto';
import { COURIERS } from './catalogue.js';
import type { OrderStore } from './order-store.js';

/**
 * Orders move along the usual path, one step each `statusStepMs`, driven by a timer and stored as they go:
 * Waiting Payment Success → Waiting Clinical Check → Prescription at Pharmacy → Prescription Dispatched
 * (dispatch date and tracking id set) → Prescription Processed. Invoice orders start at Waiting Clinical Check.
 */

export const STATUS = {
  waitingPayment: 'Waiting Payment Success',
  waitingClinicalCheck: 'Waiting Clinical Check',
  atPharmacy: 'Prescription at Pharmacy',
  dispatched: 'Prescription Dispatched',
  processed: 'Prescription Processed',
  cancelled: 'Cancelled',
} as const;

const NEXT: Readonly<Record<string, string>> = {
  [STATUS.waitingPayment]: STATUS.waitingClinicalCheck,
  [STATUS.waitingClinicalCheck]: STATUS.atPharmacy,
  [STATUS.atPharmacy]: STATUS.dispatched,
  [STATUS.dispatched]: STATUS.processed,
};

/** States from which a cancel is still accepted: everything before dispatch. */
export const CANCELLABLE: readonly string[] = [STATUS.waitingPayment, STATUS.waitingClinicalCheck, STATUS.atPharmacy];

export function initialStatus(invoiceOnly: boolean): string {
  return invoiceOnly ? STATUS.waitingClinicalCheck : STATUS.waitingPayment;
}

/** A tracking id in the courier's usual format (Royal Mail `RM123456789GB`, DPD 14 digits). */
export function trackingIdFor(courierCode: string | null): string {
  const courier = COURIERS.find((c) => c.courierCode === courierCode) ?? COURIERS[0]!;
  const { prefix, digits, suffix } = courier.tracking;
  let number = '';
  for (let i = 0; i < digits; i += 1) number += String(randomInt(10));
  return `${prefix}${number}${suffix}`;
}

/** Today's date in UTC as `YYYY-MM-DD`: dispatch dates, and what the date-range query compares. */
export function todayIso(now = new Date()): string {
  return now.toISOString().slice(0, 10);
}

/**
 * Orders one progression step moves at most, in one transaction: the sandbox usually runs inside the app's core,
 * and a busy submit makes a thousand orders due each second (one step moving them all held the core's event loop
 * for 50–300 ms); the timer moves the rest in further steps, a turn of the loop apart.
 */
export const PROGRESSION_STEP_LIMIT = 200;

/**
 * Moves every order whose current status is at least `stepMs` old one step on, at most `limit` of them (lowest id
 * first). Returns how many moved.
 */
export function advanceDueOrders(
  store: OrderStore,
  stepMs: number,
  now = Date.now(),
  limit = Number.POSITIVE_INFINITY,
): number {
  return store.transaction(() => {
    const due = store.dueOrders(Object.keys(NEXT), now - stepMs, limit);
    for (const order of due) {
      const next = NEXT[order.status]!;
      store.setStatus(
        order.pharmacyOrderId,
        next,
        next === STATUS.dispatched
          ? { dispatchDate: todayIso(new Date(now)), trackingId: trackingIdFor(order.courierCode) }
          : {},
      );
    }
    return due.length;
  });
}

/** Starts the timer; the returned function stops it. The timer never keeps the process alive on its own. */
export function startStatusProgression(
  store: OrderStore,
  stepMs: number,
  onError: (error: unknown) => void,
): () => void {
  // Check several times per step so an order waits about one step, not up to two.
  const tickMs = Math.max(10, Math.min(Math.floor(stepMs / 4), 1000));
  let stopped = false;
  let stepping = false;
  // One tick's orders in bounded steps, a turn of the loop (setImmediate) between them, so other work is answered.
  const step = (now: number) => {
    if (stopped) {
      stepping = false;
      return;
    }
    try {
      if (advanceDueOrders(store, stepMs, now, PROGRESSION_STEP_LIMIT) === PROGRESSION_STEP_LIMIT) {
        setImmediate(() => step(now));
        return;
      }
    } catch (error) {
      onError(error);
    }
    stepping = false;
  };
  const timer = setInterval(() => {
    if (stepping) return;
    stepping = true;
    step(Date.now());
  }, tickMs);
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
