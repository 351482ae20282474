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
