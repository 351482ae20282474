import type { CodeLists } from '../../../shared/environment.js';
import { createWithClinicV1Schema } from '../../../shared/orders.js';
import type { BatchView, ImportSummary, StagedOrderView } from '../../../shared/staging-views.js';
import type { BatchRecord } from '../store/batches-repo.js';
import type { StagedOrder } from '../store/staged-orders-repo.js';
import type { Store } from '../store/store.js';
import { withinBounds } from '../importing/hl7-sender.js';
import { compactedBody } from './compacted-body.js';
import { wireRequest } from './route-request.js';
import type { UndoState } from './edit-history.js';
import type { StoredReport } from './stage-file.js';

/** Staging records as the contract shows them. */

export function toBatchView(store: Store, batch: BatchRecord, undo: UndoState): BatchView {
  let summary: ImportSummary | null = null;
  if (batch.report && typeof batch.report === 'object') {
    const { headerText: _headerText, ...rest } = batch.report as StoredReport;
    // A sender an earlier version kept whole (finding 69) is cut here too: it made every list holding it fail.
    summary = rest.hl7Sender ? { ...rest, hl7Sender: withinBounds(rest.hl7Sender) } : rest;
  }
  return {
    id: batch.id,
    environmentId: batch.environmentId,
    sourceFileName: batch.sourceFileName,
    kind: batch.kind,
    route: batch.route,
    createdAt: batch.createdAt,
    counts: store.stagedOrders.counts(batch.id),
    summary,
    discardedAt: batch.discardedAt,
    undo: undo.undo,
    redo: undo.redo,
  };
}

/**
 * One staged order with the request it will become: for a valid staged order, built now for the batch's route
 * (the same function accept uses); for an accepted one, what the outbox holds.
 */
export function toStagedOrderView(
  store: Store,
  order: StagedOrder,
  route: BatchRecord['route'],
  codeLists: CodeLists,
): StagedOrderView {
  let request: string | null = null;
  if (order.state === 'accepted') {
    request =
      order.orderControl === 'NW' && order.orderId ? (store.orders.get(order.orderId)?.requestBody ?? null) : null;
  } else if (order.valid && order.orderControl === 'NW') {
    const built = wireRequest(order, route, codeLists);
    request = built.ok ? built.text : null;
  }
  const body = compactedBody(order, route, request) ?? order.body;
  const parsed = order.valid ? createWithClinicV1Schema.safeParse(body) : undefined;
  return {
    id: order.id,
    batchId: order.batchId,
    position: order.position,
    state: order.state,
    orderId: order.orderId,
    valid: order.valid,
    clinicCode: order.clinicCode,
    clinicOrderId: order.clinicOrderId,
    orderControl: order.orderControl,
    edited: order.editedAt !== null,
    body: parsed?.success ? parsed.data : body,
    request,
    problems: order.problems,
    provenance: order.provenance,
    ...(order.source.rows ? { rows: order.source.rows } : {}),
    ...(order.source.message !== undefined ? { message: order.source.message } : {}),
  };
}
