import type { StagedOrderView } from '../../../../../shared/staging-views.js';

/** A valid staged order at `position` of batch 1, as 'batches.get' gives it, for the preview's unit tests. */
export function stagedOrderAt(position: number, id = position + 1000): StagedOrderView {
  return {
    id,
    batchId: 1,
    position,
    state: 'staged',
    orderId: null,
    valid: true,
    clinicCode: 'C',
    clinicOrderId: `O-${position}`,
    orderControl: 'NW',
    edited: false,
    body: {},
    request: null,
    problems: [],
    provenance: {},
  };
}
