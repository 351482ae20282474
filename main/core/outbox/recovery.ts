import type { Store } from '../store/store.js';

const PAGE = 200;

/**
 * Start-up recovery: an order left in `sending` was claimed by a process that stopped (crash, kill, power loss)
 * somewhere between the claim and recording the answer, so it may or may not have reached the service. It
 * becomes `in_doubt`, remembered as such, and is looked up after `reconcileDelayMs` before anything is sent
 * again. Only safe while no other process sends for this data directory, which the store's lock guarantees.
 */
export function recoverInterrupted(store: Store, environmentId: string, lookUpAt: Date): number {
  let recovered = 0;
  const message = 'the app stopped while sending this order: looking it up before sending again';
  for (;;) {
    const page = store.orders.list({ environmentId, states: ['sending'], limit: PAGE });
    if (page.length === 0) return recovered;
    for (const order of page) {
      store.inTransaction(() => {
        const moved = store.orders.transition(
          order.id,
          ['sending'],
          'in_doubt',
          { lastError: { kind: 'in-doubt', message }, nextAttemptAt: lookUpAt },
          { actor: 'system', action: 'order.interrupted', details: { errorKind: 'in-doubt', errorMessage: message } },
        );
        if (moved) store.outboxQueue.markWasInDoubt(order.id);
      });
      recovered += 1;
    }
  }
}

/**
 * Start-up recovery, second part: a queued order whose earlier create got a 5xx (or 408) may be at the service
 * already. Versions before "a 5xx is indeterminate" queued such orders to be sent again as if nothing had happened;
 * these become `in_doubt`, remembered as such, and are looked up first. Orders this version handles never match
 * (a 5xx makes them in doubt at once), so after the first start this finds nothing, reading only failed orders.
 */
export function recoverUnclear(store: Store, environmentId: string, lookUpAt: Date): number {
  let recovered = 0;
  const message = 'an earlier send got an answer (5xx) that does not say whether it was created: looking it up first';
  for (;;) {
    const ids = store.outboxQueue.queuedAfterUnclearAnswer(environmentId, PAGE);
    if (ids.length === 0) return recovered;
    for (const id of ids) {
      store.inTransaction(() => {
        const moved = store.orders.transition(
          id,
          ['queued'],
          'in_doubt',
          { lastError: { kind: 'in-doubt', message }, nextAttemptAt: lookUpAt },
          { actor: 'system', action: 'order.in-doubt', details: { errorKind: 'in-doubt', errorMessage: message } },
        );
        // Remembered either way, so a page that could not move it is not read again forever.
        store.outboxQueue.markWasInDoubt(id);
        if (moved) recovered += 1;
      });
    }
  }
}
