import { z } from 'zod';
import { batchEnrichmentSchema, enrichmentProgressSchema, enrichmentRunSchema } from './enrichment-views.js';

/**
 * Checking a staged batch with the Order Service (spread into `calls` in contract.ts): resolve dm+d codes to
 * products, stock, prices, and courier codes against the courier list. The answers are stored with their time,
 * so `batches.enrichment` reads them offline. See main/core/enrichment/README.md.
 */

const idSchema = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);

/** Longest a stored answer is reused instead of asked again (a day); 0 asks everything afresh. */
export const MAX_REUSE_SECONDS = 86_400;
/** Default reuse window: a second click within five minutes does not ask the service everything again. */
export const DEFAULT_REUSE_SECONDS = 300;
/** Orders one `batches.enrichment` call reads. */
export const MAX_ENRICHMENT_ORDERS = 200;

export const enrichmentCalls = {
  /**
   * Checks the batch's staged orders with the service (each distinct dm+d code and courier code once) and stores
   * the answers; resolves with the summary when done, cancelled or stopped (offline, signed out). A second call
   * while one runs for the batch joins it. Progress comes as `enrichment.progress` events.
   */
  'batches.enrich': {
    input: z
      .object({
        batchId: idSchema,
        /** Reuse stored answers younger than this (default 300 s); 0 asks everything afresh. */
        reuseWithinSeconds: z.number().int().min(0).max(MAX_REUSE_SECONDS).optional(),
      })
      .strict(),
    output: enrichmentRunSchema,
  },
  /** Stops a running check of the batch; what was answered so far is kept. */
  'batches.enrichCancel': {
    input: z.object({ batchId: idSchema }).strict(),
    output: z.object({ cancelled: z.boolean() }),
  },
  /**
   * What is known of some of the batch's orders (by staged order id, or a page in file order), read from the
   * store with each answer's time: works offline. An empty id list gives just the last run and any progress;
   * `onlyWarnings` pages over the staged orders with service warnings.
   */
  'batches.enrichment': {
    input: z
      .object({
        batchId: idSchema,
        stagedOrderIds: z.array(idSchema).max(MAX_ENRICHMENT_ORDERS).optional(),
        offset: z.number().int().nonnegative().max(10_000_000).optional(),
        limit: z.number().int().min(1).max(MAX_ENRICHMENT_ORDERS).optional(),
        /** Page over only the staged orders with service warnings (the preview's filter); `total` counts them. */
        onlyWarnings: z.boolean().optional(),
      })
      .strict()
      .refine(
        (input) =>
          input.stagedOrderIds === undefined ||
          (input.offset === undefined && input.limit === undefined && input.onlyWarnings === undefined),
        'give either stagedOrderIds or offset and limit',
      ),
    output: batchEnrichmentSchema,
  },
} as const;

export const enrichmentEvents = {
  /** A running check's progress (and one `finished` at its end): refetch what is shown. */
  'enrichment.progress': enrichmentProgressSchema,
} as const;
