import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeTemplateCsv } from '../main/core/importing/template-csv.js';
import { StagingService } from '../main/core/staging/staging-service.js';
import {
  scaleOrderBody,
  scalePlan,
  settleScaleBatch,
  type ScaleShape,
} from '../main/core/store/testing/scale-store.js';
import type { Store } from '../main/core/store/store.js';

/**
 * The scale store (`main/core/store/testing/scale-store.ts`) with each batch arriving as the app receives it: a
 * template CSV of the batch's orders imported into staging (staged orders with their body, provenance and the
 * original records) and accepted there, then sent and tracked as the plain build does. This is what the store
 * keeps copies of (issue #16, "Size"), and what retention compacts. `dir` holds the CSV files while they are read.
 */
export async function buildStagedScaleStore(
  store: Store,
  shape: ScaleShape,
  clock: { advance(ms: number): void },
  dir: string,
): Promise<number> {
  const plan = scalePlan(shape);
  const staging = new StagingService({
    store,
    now: () => store.now(),
    codeListsFor: (environmentId) => {
      const environment = store.environments.get(environmentId);
      if (!environment) throw new Error(`no environment ${environmentId}`);
      return environment.codeLists;
    },
  });
  let built = 0;
  while (built < shape.orders) {
    const count = Math.min(plan.batchSize, shape.orders - built);
    const first = built;
    const bodies = Array.from({ length: count }, (_, i) => scaleOrderBody(first + i, plan.random));
    const path = join(dir, `orders-${first}.csv`);
    writeFileSync(path, writeTemplateCsv(bodies));
    const imported = await staging.importFile({ environmentId: shape.environmentId, path });
    if (imported.status !== 'staged' || imported.invalid > 0) {
      throw new Error(`the scale batch at ${first} did not stage whole: ${JSON.stringify(imported).slice(0, 500)}`);
    }
    const accepted = staging.accept(imported.batchId);
    if (accepted.accepted !== count) throw new Error(`the scale batch at ${first} accepted ${accepted.accepted}`);
    const ids = store.orders
      .list({ environmentId: shape.environmentId, batchId: imported.batchId, limit: count })
      .map((order) => order.id);
    store.inTransaction(() => settleScaleBatch(store, shape, plan, ids, first));
    built += count;
    clock.advance(plan.batchMs);
    shape.onBatch?.(built);
  }
  return built;
}
