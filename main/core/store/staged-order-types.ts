import type { ImportedOrder, Provenance } from '../model/imported-order.js';

/** Where a value came from; `edited` once the admin changed it (with where the value it replaced came from). */
export type StagedProvenance = Provenance | { kind: 'edited'; at: string; was?: Provenance };

export interface StagedOrderSource {
  file: string;
  rows?: number[];
  records?: string[];
  message?: number;
  hl7?: string;
}

/** What the writer takes: an imported order, with its problems already including any route problems. */
export type NewStagedOrder = Pick<
  ImportedOrder,
  'clinicCode' | 'clinicOrderId' | 'body' | 'valid' | 'problems' | 'provenance' | 'source'
>;
