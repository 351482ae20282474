import { DuplicateOrderError } from '../core/store/orders-repo.js';
import type { Store } from '../core/store/store.js';
import { InputError } from './cli-errors.js';

export interface AcceptedBatch {
  batchId: number;
  environmentId: string;
  accepted: number;
  /** Orders whose clinic order id was accepted into the outbox meanwhile (another batch): rejected, with why. */
  duplicates: number[];
}

const PAGE = 1000;

/**
 * Moves a batch's staged (`ready`) orders into the outbox (`queued`) in one transaction, each with its audit
 * entry, plus one `batch.accepted` entry. An order that became a duplicate since it was staged (the same clinic
 * order id accepted from another batch) is rejected with the reason instead: accepting it would send it twice.
 */
export function acceptBatch(store: Store, batchId: number): AcceptedBatch {
  const batch = store.batches.get(batchId);
  if (!batch) throw new InputError(`there is no batch ${batchId}`);
  return store.inTransaction(() => {
    let accepted = 0;
    const duplicates: number[] = [];
    for (let afterId = 0; ;) {
      const page = store.orders.list({ batchId, states: ['ready'], afterId, limit: PAGE });
      for (const order of page) {
        try {
          if (store.orders.transition(order.id, ['ready'], 'queued', {}, { actor: 'user', action: 'order.accepted' })) {
            accepted += 1;
          }
        } catch (error) {
          if (!(error instanceof DuplicateOrderError)) throw error;
          const message = `${order.clinicOrderId} of clinic ${order.clinicCode} is already in the outbox from another batch`;
          store.orders.transition(
            order.id,
            ['ready'],
            'rejected',
            { lastError: { kind: 'rejected', message, field: 'prescription.clinicOrderId' } },
            { actor: 'user', action: 'order.rejected', details: { errorMessage: message } },
          );
          duplicates.push(order.id);
        }
      }
      if (page.length < PAGE) break;
      afterId = page[page.length - 1]!.id;
    }
    store.audit.append({
      actor: 'user',
      action: 'batch.accepted',
      environmentId: batch.environmentId,
      batchId,
      details: { orderCount: accepted, invalidCount: duplicates.length },
    });
    return { batchId, environmentId: batch.environmentId, accepted, duplicates };
  });
}
