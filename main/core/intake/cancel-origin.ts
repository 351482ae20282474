import type { Problem } from '../model/imported-order.js';
import type { OrderRecord } from '../store/order-records.js';
import type { Store } from '../store/store.js';
import type { AckError } from './hl7-ack.js';

/**
 * A cancel (ORC-1 CA) that arrived through the intake for an order its sender did not send: senders are not tied to
 * clinic codes, so acting on it would let any system on the network cancel another clinic's prescriptions
 * (docs/security.md, finding 21). It is staged, not acted on, with a warning for the admin (who may accept it
 * deliberately) and an ERR for the sender that says only what the sender may know.
 */
export interface HeldCancel {
  order: Pick<OrderRecord, 'id' | 'batchId' | 'clinicCode' | 'clinicOrderId'>;
  problem: Problem;
  ackError: AckError;
}

export const OTHER_SENDERS_ORDER = 'cancel.otherSender';

export function otherSendersOrder(
  store: Store,
  cancel: {
    sender: string;
    order: HeldCancel['order'];
    location: { file: string; message?: number };
  },
): HeldCancel {
  const { sender, order, location } = cancel;
  const from = sender || 'a sender that names no MSH-3/MSH-4';
  const named = `ORC-1 CA for order '${order.clinicOrderId}' of clinic '${order.clinicCode}'`;
  const batch = store.batches.get(order.batchId);
  const origin = batch ? `batch ${batch.id}, "${batch.sourceFileName}"` : `batch ${order.batchId}`;
  const text =
    `${named}, which ${from} did not send (it was accepted from ${origin}): the order was not cancelled. ` +
    'Review it: accept this cancel only if that order is to be cancelled, else discard the batch or leave it.';
  return {
    order,
    problem: {
      severity: 'warning',
      file: location.file,
      ...(location.message !== undefined ? { message: location.message } : {}),
      field: 'prescription.clinicOrderId',
      code: OTHER_SENDERS_ORDER,
      text,
    },
    ackError: {
      hl7Code: '207',
      text: `${named} was not acted on: ${from} did not send that order. It waits for the pharmacy's review.`,
    },
  };
}
