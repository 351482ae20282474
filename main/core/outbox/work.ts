import type { ClaimedOrder, OrderRecord } from '../store/orders-repo.js';
import type { DueCancel } from '../store/outbox-queue-repo.js';

/**
 * One unit of the sending loop's work, keyed by order id (an order is never in two kinds of work at once). A create
 * carries the number of the commit that claimed it: its request leaves only once that commit is durable.
 */
export type Work =
  | { kind: 'create'; id: number; order: ClaimedOrder; commit: number }
  | { kind: 'lookup'; id: number; order: OrderRecord }
  | { kind: 'cancel'; id: number; command: DueCancel };
