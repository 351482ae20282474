import type { CallHandlers } from '../../../shared/contract.js';
import { ContractError } from '../../../shared/errors.js';
import type { stagingCalls } from '../../../shared/staging-contract.js';
import type { AppServices } from '../app-services.js';
import type { ExportDeps } from '../export-target.js';
import { exportBatch } from './batch-export-handlers.js';
import { StagingError } from './staging-deps.js';
import { clearLeftoverUploads, StagingService } from './staging-service.js';

/** The staging calls of the contract, over the core's services. */

type StagingCallName = keyof typeof stagingCalls;

const services = new WeakMap<AppServices, StagingService>();

/** The one StagingService of a core (so `import.cancel` reaches the import it names). */
export function stagingFor(app: AppServices): StagingService {
  let staging = services.get(app);
  if (!staging) {
    // The core's one service that imports uploads, made once as the core starts: what an earlier run left goes.
    clearLeftoverUploads(app.store.dataDir);
    staging = new StagingService({
      store: app.store,
      codeListsFor: (environmentId) => app.registry.get(environmentId).codeLists,
      notifyOutbox: (environmentId) => app.outbox.notify(environmentId),
      onProgress: (progress) => app.events.emit('import.progress', progress),
      onBatchChanged: (change) => app.events.emit('batches.changed', change),
    });
    services.set(app, staging);
  }
  return staging;
}

/** Staging's own refusals cross the contract as invalid input, with the sentence the admin reads. */
async function asContract<T>(run: () => T | Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof StagingError) throw new ContractError({ code: 'invalid-input', message: error.message });
    throw error;
  }
}

/** A value of an order's history as the review screen shows it: text as it is, numbers as digits, blank as null. */
function asText(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

function stepAnswer(outcome: ReturnType<StagingService['undo']>) {
  return { step: outcome.step, changed: outcome.stagedOrderIds.length, counts: outcome.counts };
}

export function buildStagingHandlers(app: AppServices, deps: ExportDeps): Pick<CallHandlers, StagingCallName> {
  const staging = stagingFor(app);
  return {
    'import.file': (input) =>
      asContract(() =>
        staging.importFile({
          environmentId: input.environmentId,
          ...(input.path !== undefined ? { path: input.path } : {}),
          ...(input.upload ? { upload: input.upload } : {}),
          ...(input.profile !== undefined ? { profile: input.profile } : {}),
          ...(input.autoProfile !== undefined ? { autoProfile: input.autoProfile } : {}),
          ...(input.encoding !== undefined ? { encoding: input.encoding } : {}),
          ...(input.route !== undefined ? { route: input.route } : {}),
          ...(input.importId !== undefined ? { importId: input.importId } : {}),
        }),
      ),
    'import.cancel': ({ importId }) => Promise.resolve({ cancelled: staging.cancelImport(importId) }),
    'batches.list': ({ environmentId, limit, before }) =>
      asContract(() =>
        staging.listBatches(environmentId, {
          ...(limit !== undefined ? { limit } : {}),
          ...(before !== undefined ? { before } : {}),
        }),
      ),
    'batches.get': ({ batchId, offset, limit, onlyProblems }) =>
      asContract(() =>
        staging.getBatch(batchId, {
          ...(offset !== undefined ? { offset } : {}),
          ...(limit !== undefined ? { limit } : {}),
          ...(onlyProblems !== undefined ? { onlyProblems } : {}),
        }),
      ),
    'batches.editOrder': ({ stagedOrderId, edits, body }) =>
      asContract(() => staging.editOrder(stagedOrderId, edits ? { edits } : { body: body ?? {} })),
    'batches.replace': ({ batchId, field, find, replace, match, dryRun }) =>
      asContract(() =>
        staging.replace({ batchId, field, find, replace, ...(match ? { match } : {}), ...(dryRun ? { dryRun } : {}) }),
      ),
    'batches.undo': ({ batchId }) => asContract(() => stepAnswer(staging.undo(batchId))),
    'batches.redo': ({ batchId }) => asContract(() => stepAnswer(staging.redo(batchId))),
    'batches.orderHistory': ({ stagedOrderId }) =>
      asContract(() => ({
        entries: staging.orderHistory(stagedOrderId).map((entry) => ({
          ...entry,
          before: asText(entry.before),
          after: asText(entry.after),
        })),
      })),
    'batches.findProblem': ({ batchId, fromPosition, direction }) =>
      asContract(() => ({ found: staging.findProblem(batchId, fromPosition, direction) })),
    'batches.problemFields': ({ batchId }) => asContract(() => ({ fields: staging.problemFields(batchId) })),
    'batches.discard': ({ batchId }) => asContract(() => staging.discard(batchId)),
    'batches.setRoute': ({ batchId, route }) => asContract(() => staging.setRoute(batchId, route)),
    'batches.accept': ({ batchId, seen }) => asContract(() => staging.acceptAll(batchId, seen)),
    'batches.exportErrors': ({ batchId }) => asContract(() => exportBatch(staging, deps, batchId, 'errors')),
    'batches.exportTemplate': ({ batchId }) => asContract(() => exportBatch(staging, deps, batchId, 'template')),
    'template.example': () => Promise.resolve(staging.exampleTemplate()),
    'profiles.list': () => Promise.resolve(staging.listProfiles()),
    'profiles.save': ({ profile, fromBatchId, headerCells }) =>
      asContract(() => staging.saveProfile(profile, fromBatchId, headerCells ?? null)),
  };
}
