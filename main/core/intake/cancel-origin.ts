import type { Problem } from '../model/imported-order.js';
import type { OrderRecord } from '../store/order-records.js';
import type { IntakeRepo } from '../store/intake-repo.js';
import type { Store } from '../store/store.js';
import { readMessageHeader, type AckError } from './hl7-ack.js';

/**
 * A cancel (ORC-1 CA) that arrived through the intake for an order its sender did not send: senders are not tied to
 * clinic codes, so acting on it would let any system on the network cancel another clinic's prescriptions
 * (docs/security.md, finding 22). It is staged, not acted on, with a warning for the admin (who may accept it
 * deliberately); the sender's ERR is `cancelNotActedOn`, which says only what the sender may know.
 */
export interface HeldCancel {
  order: Pick<OrderRecord, 'id' | 'batchId' | 'clinicCode' | 'clinicOrderId'>;
  problem: Problem;
}

export const OTHER_SENDERS_ORDER = 'cancel.otherSender';
/** The importer's problem for a cancel whose order no batch queued or sent (`importing/finish-order.ts`). */
export const UNKNOWN_ORDER = 'cancel.unknownOrder';

type AcceptedOrder = HeldCancel['order'];

/** The sender of an HL7 message (MSH-3^MSH-4, first components, as the intake's rules name it); '' when none. */
export function senderOfMessage(hl7: string | undefined): string {
  return hl7 === undefined ? '' : (readMessageHeader(hl7)?.sender ?? '');
}

/**
 * Whether `sender` sent the accepted order: its batch is a day batch the sender's messages fed (or `current`, the
 * day batch being appended to now), or a file a watched folder imported (or `current`, the file being accepted now)
 * whose message for that order names the sender. An admin's import is no sender's, and a message naming no
 * sender sent nothing that a cancel could name.
 */
export function sentBy(
  store: Store,
  repo: IntakeRepo,
  environmentId: string,
  sender: string,
  order: AcceptedOrder,
  current?: { batchId: number; kind: 'day' | 'file' },
): boolean {
  if (sender === '') return false;
  if (current?.kind === 'day' && order.batchId === current.batchId) return true;
  if (repo.fedBatch(environmentId, sender, order.batchId)) return true;
  const watched =
    (current?.kind === 'file' && order.batchId === current.batchId) ||
    repo.watchedFileBatch(environmentId, order.batchId);
  if (!watched) return false;
  const stagedId = repo.stagedRowOf(order);
  return stagedId !== undefined && senderOfMessage(store.stagedOrders.get(stagedId)?.source.hl7) === sender;
}

export function otherSendersOrder(
  store: Store,
  cancel: {
    sender: string;
    order: HeldCancel['order'];
    location: { file: string; message?: number };
  },
): HeldCancel {
  const { sender, order, location } = cancel;
  const from = sender || 'a message or file that names no sender (MSH-3/MSH-4)';
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
  };
}

/**
 * The sender's answer to a cancel not acted on because it names no order this sender sent: one sentence, whether
 * the order is another sender's, an admin's import, or no order at all, worded in this sender's terms only. An
 * answer that told those apart would let any sender learn which clinic order ids exist for any clinic
 * (docs/security.md, finding 24); the admin's staged problem and the audit entry keep the true reason.
 */
export function cancelNotActedOn(
  sender: string,
  order: { clinicCode: string | null; clinicOrderId: string | null },
): AckError {
  const from = sender || 'a message or file that names no sender (MSH-3/MSH-4)';
  return {
    hl7Code: '204',
    text:
      `ORC-1 CA for order '${order.clinicOrderId}' of clinic '${order.clinicCode}' was not acted on: ${from} ` +
      "sent no order with that identity, so nothing was cancelled. It waits for the pharmacy's review.",
  };
}

/**
 * The sender's answer to a cancel naming only some items of a grouped order it sent (group-cancel.ts): the
 * importer's sentence, which names only the sender's own order and items. 207, as no key or field is wrong.
 */
export function partialCancelNotActedOn(problem: Problem): AckError {
  return { hl7Code: '207', text: problem.text };
}
