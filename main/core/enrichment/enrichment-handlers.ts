import type { CallHandlers } from '../../../shared/contract.js';
import type { enrichmentCalls } from '../../../shared/enrichment-contract.js';
import { ContractError } from '../../../shared/errors.js';
import type { AppServices } from '../app-services.js';
import {
  EnrichmentError,
  EnrichmentService,
  type EnrichmentDeps,
  type EnrichmentTuning,
} from './enrichment-service.js';

/** The enrichment calls of the contract, over the core's services. */

type EnrichmentCallName = keyof typeof enrichmentCalls;

const services = new WeakMap<AppServices, EnrichmentService>();

/**
 * The one EnrichmentService of a core (so `batches.enrichCancel` reaches the check it names), built over the
 * core's store, environments (pace, clients, sign-in) and events. `tuning` applies when it is first built.
 */
export function enrichmentFor(app: AppServices, tuning: Partial<EnrichmentTuning> = {}): EnrichmentService {
  let enrichment = services.get(app);
  if (!enrichment) {
    enrichment = new EnrichmentService(enrichmentDeps(app), tuning);
    services.set(app, enrichment);
    // A check still running when the core closes is cancelled (and waited for) before the store closes.
    const closing = enrichment;
    app.onClose(() => closing.close());
    // A checked batch that grows (live intake appends each message to its sender's batch of the day) gets its new
    // orders checked: a cheap look for other changes (an edit, an accept), a check of just the new orders otherwise.
    app.events.subscribe('batches.changed', ({ batchId }) => {
      // After the change's own turn (an emitter may be mid-way through its work). It fails only when the core
      // closes under it (service failures are recorded as answers are): no one waits for it.
      void Promise.resolve()
        .then(() => (app.store.isOpen ? closing.refreshAppended(batchId) : null))
        .catch(() => undefined);
    });
  }
  return enrichment;
}

/** What enrichment needs of a core: its store, each environment's pace, clients and sign-in, and its events. */
export function enrichmentDeps(app: AppServices): EnrichmentDeps {
  const { registry } = app;
  return {
    store: app.store,
    environment: (environmentId) => registry.get(environmentId),
    clients: (environmentId) => ({
      anonymous: registry.client(environmentId, 'anonymous'),
      secured: registry.client(environmentId, 'secured'),
    }),
    signedIn: async (environmentId) => (await registry.session(environmentId).restore()).signedIn,
    onProgress: (progress) => app.events.emit('enrichment.progress', progress),
  };
}

/** Enrichment's own refusals cross the contract as invalid input, with the sentence the admin reads. */
async function asContract<T>(run: () => T | Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof EnrichmentError) throw new ContractError({ code: 'invalid-input', message: error.message });
    throw error;
  }
}

export function buildEnrichmentHandlers(app: AppServices): Pick<CallHandlers, EnrichmentCallName> {
  const enrichment = enrichmentFor(app);
  return {
    'batches.enrich': ({ batchId, reuseWithinSeconds }) =>
      asContract(() =>
        // Left out, the service's own default applies (DEFAULT_REUSE_SECONDS, defined once in the contract).
        enrichment.enrich(
          batchId,
          reuseWithinSeconds === undefined ? {} : { reuseWithinMs: reuseWithinSeconds * 1000 },
        ),
      ),
    'batches.enrichCancel': ({ batchId }) => Promise.resolve({ cancelled: enrichment.cancel(batchId) }),
    'batches.enrichment': ({ batchId, stagedOrderIds, offset, limit, onlyWarnings }) =>
      asContract(() =>
        enrichment.read(
          batchId,
          stagedOrderIds
            ? { stagedOrderIds }
            : { offset: offset ?? 0, limit: limit ?? 50, onlyWarnings: !!onlyWarnings },
        ),
      ),
  };
}
