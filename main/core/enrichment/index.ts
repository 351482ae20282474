/** Online enrichment of staged batches: products, stock, prices and couriers from the service (see README.md). */
export {
  DEFAULT_ENRICHMENT_TUNING,
  EnrichmentError,
  EnrichmentService,
  type EnrichmentDeps,
  type EnrichmentQuery,
  type EnrichmentTuning,
} from './enrichment-service.js';
export { buildEnrichmentHandlers, enrichmentDeps, enrichmentFor } from './enrichment-handlers.js';
export { runLookups, type LookupClients, type LookupTuning } from './lookup-run.js';
export { planBatch, type BatchPlan } from './batch-plan.js';
export { orderEnrichment, itemEnrichment, courierState } from './order-view.js';
