import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreateWithClinicV1Input } from '../../../shared/orders.js';
import { startSandbox, type RunningSandbox } from '../../../test/sandbox/index.js';
import { LOCAL_SANDBOX_ID } from '../environments/presets.js';
import { templateCsv, uniqueOrder } from '../staging/testing/staging-fixtures.js';
import { openTestCore, type TestCore } from '../testing/test-core.js';
import { enrichmentDeps } from './enrichment-handlers.js';
import { EnrichmentService } from './enrichment-service.js';

// Cancelling a check while a service call is in flight, against a real sandbox over loopback: the call is
// aborted, so the run ends at once instead of when the service would have answered; the answer that came
// before is kept; the sandbox saw the aborted call and nothing after it.

/** The service's delay once the first answer is in: far longer than the test may take. */
const SLOW_MS = 30_000;
const PARACETAMOL = '322236009';

function order(dmdCode: string): CreateWithClinicV1Input {
  const body = uniqueOrder({}, 'CNC');
  body.prescription.courierCode = 'RMT24';
  body.prescribedItems = [{ dmdCode, medication: 'As prescribed', dosageInstructions: 'As directed', quantity: 1 }];
  body.prescribedItems[0]!.pack = 2;
  return body;
}

describe('cancelling a check with a call in flight', () => {
  let sandbox: RunningSandbox;
  let test: TestCore;

  beforeAll(async () => {
    sandbox = await startSandbox({ statusStepMs: 60_000 });
    test = await openTestCore('enrich-cancel');
    const { registry, signin } = test.core.services;
    registry.update({
      ...registry.get(LOCAL_SANDBOX_ID),
      apiBaseUrl: sandbox.apiUrl,
      issuer: sandbox.issuer,
      clientId: sandbox.serviceClient.clientId,
      grant: 'client_credentials' as const,
      // A request timeout beyond the slow call, so only the cancel can end it early.
      requestTimeoutMs: 60_000,
    });
    expect(await signin.clientCredentials(LOCAL_SANDBOX_ID, sandbox.serviceClient.clientSecret)).toEqual({ ok: true });
  });

  afterAll(async () => {
    await test?.close();
    await sandbox?.close();
  });

  it('aborts the call, ends at once, keeps the answer that came', { timeout: 20_000 }, async () => {
    const imported = await test.api.call('import.file', {
      environmentId: LOCAL_SANDBOX_ID,
      upload: { name: 'cancel.csv', content: templateCsv([order(PARACETAMOL)]) },
    });
    if (imported.status !== 'staged') throw new Error(`not staged: ${JSON.stringify(imported)}`);
    const { batchId } = imported;

    // One worker: the courier list is asked first and answered; then the service turns slow, so the product
    // search for the code is the call in flight.
    const deps = enrichmentDeps(test.core.services);
    const enrichment = new EnrichmentService(
      {
        ...deps,
        onProgress: (progress) => {
          if (progress.state === 'running' && progress.done === 1) sandbox.setFaults({ latencyMs: SLOW_MS });
        },
      },
      { concurrency: 1, progressEveryMs: 0 },
    );
    const before = sandbox.requestCount();
    try {
      const running = enrichment.enrich(batchId, { reuseWithinMs: 0 });
      await expect.poll(() => sandbox.requestCount(), { timeout: 10_000 }).toBe(before + 2);

      const cancelledAt = performance.now();
      expect(enrichment.cancel(batchId)).toBe(true);
      const run = await running;
      const waitedMs = performance.now() - cancelledAt;

      expect(run).toMatchObject({ outcome: 'cancelled', calls: 2 });
      expect(run.message).toContain('Cancelled');
      // Ended by the cancel, far sooner than the slow answer would have come.
      expect(waitedMs).toBeLessThan(SLOW_MS / 3);
      expect(enrichment.progress(batchId)).toBeNull();
      // The sandbox saw the courier list and the aborted search, and nothing after them.
      expect(sandbox.requestCount()).toBe(before + 2);

      const [view] = enrichment.read(batchId, { offset: 0, limit: 10 }).orders;
      // The answer that came before the cancel is stored; the aborted question is not recorded as a failure.
      expect(view?.courier).toMatchObject({ state: 'listed', courierCode: 'RMT24', recheckFailed: null });
      expect(view?.items[0]?.product).toMatchObject({ state: 'not-checked', reason: 'never', triedAt: null });
      expect(test.core.services.store.enrichment.run(batchId)?.outcome).toBe('cancelled');
    } finally {
      sandbox.setFaults({ latencyMs: 0 });
    }
  });
});
