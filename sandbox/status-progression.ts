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

/** Moves every order whose current status is at least `stepMs` old one step on. Returns how many moved. */
export function advanceDueOrders(store: OrderStore, stepMs: number, now = Date.now()): number {
  return store.transaction(() => {
    const due = store.dueOrders(Object.keys(NEXT), now - stepMs);
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
  const timer = setInterval(() => {
    try {
      advanceDueOrders(store, stepMs);
    } catch (error) {
      onError(error);
    }
  }, tickMs);
  timer.unref();
  return () => clearInterval(timer);
}
