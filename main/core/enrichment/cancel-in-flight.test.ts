import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreateWithClinicV1Input } from '../../../shared/orders.js';
import { startSandbox, type RunningSandbox } from '../../../sandbox/index.js';
import { LOCAL_SANDBOX_ID } from '../environments/presets.js';
import { templateCsv, uniqueOrder } from '../staging/testing/staging-fixtures.js';
import { openTestCore, type TestCore } from '../testing/test-core.js';
import { enrichmentDeps } from './enrichment-handlers.js';
import { EnrichmentService } from './enrichment-service.js';

// Cancelling a check while a service call is in flight, against a real sandbox over loopback: the call is
// aborted, so the run ends at once instead of when the service would have answered; the answers that came
// before are kept; the sandbox saw the aborted call and nothing after it. The item the check did not get to
// reads "not checked: cancelled" (through the contract) until a later check answers it.

/** The service's delay once the first answer is in: far longer than the test may take. */
const SLOW_MS = 30_000;
const PARACETAMOL = '322236009'; // in stock, £0.89 a pack
const IBUPROFEN = '39732311000001104'; // in stock

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
    await registry.update({
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

  it(
    'aborts the call, ends at once, keeps the answers that came, and says what it did not get to',
    { timeout: 30_000 },
    async () => {
      const imported = await test.api.call('import.file', {
        environmentId: LOCAL_SANDBOX_ID,
        upload: { name: 'cancel.csv', content: templateCsv([order(PARACETAMOL), order(IBUPROFEN)]) },
      });
      if (imported.status !== 'staged') throw new Error(`not staged: ${JSON.stringify(imported)}`);
      const { batchId } = imported;

      // One worker: the courier list is asked first, then paracetamol (search, stock, price), all answered; then
      // the service turns slow, so the product search for ibuprofen is the call in flight.
      const deps = enrichmentDeps(test.core.services);
      const enrichment = new EnrichmentService(
        {
          ...deps,
          onProgress: (progress) => {
            if (progress.state === 'running' && progress.done === 2) sandbox.setFaults({ latencyMs: SLOW_MS });
          },
        },
        { concurrency: 1, progressEveryMs: 0 },
      );
      const before = sandbox.requestCount();
      try {
        const running = enrichment.enrich(batchId, { reuseWithinMs: 0 });
        await expect.poll(() => sandbox.requestCount(), { timeout: 10_000 }).toBe(before + 5);

        const cancelledAt = performance.now();
        expect(enrichment.cancel(batchId)).toBe(true);
        const run = await running;
        const waitedMs = performance.now() - cancelledAt;

        expect(run).toMatchObject({ outcome: 'cancelled', calls: 5 });
        expect(run.message).toContain('Cancelled');
        // Ended by the cancel, far sooner than the slow answer would have come.
        expect(waitedMs).toBeLessThan(SLOW_MS / 3);
        expect(enrichment.progress(batchId)).toBeNull();
        // The sandbox saw the courier list, paracetamol's three questions and the aborted search, nothing after.
        expect(sandbox.requestCount()).toBe(before + 5);
        expect(test.core.services.store.enrichment.run(batchId)?.outcome).toBe('cancelled');
        // The aborted question is recorded nowhere (a cancel is no service failure)...
        expect(test.core.services.store.enrichment.answers(LOCAL_SANDBOX_ID, 'product', [IBUPROFEN]).size).toBe(0);
      } finally {
        sandbox.setFaults({ latencyMs: 0 });
      }

      // ...yet its item says the check was cancelled before it was answered, read through the contract (zod on the
      // output), while the answers that came before the cancel are shown as they came.
      const cancelledAt = test.core.services.store.enrichment.run(batchId)!.finishedAt;
      const afterCancel = await test.api.call('batches.enrichment', { batchId, offset: 0, limit: 10 });
      const [answered, aborted] = afterCancel.orders;
      expect(answered?.courier).toMatchObject({ state: 'listed', courierCode: 'RMT24', recheckFailed: null });
      expect(answered?.items[0]).toMatchObject({
        dmdCode: PARACETAMOL,
        product: { state: 'found', recheckFailed: null },
        stock: { state: 'in-stock' },
        price: { state: 'priced', totalPacks: 2 },
      });
      const paracetamolCheckedAt = answered?.items[0]?.product.state === 'found' && answered.items[0].product.checkedAt;
      const cancelledItem = {
        state: 'not-checked',
        reason: 'cancelled',
        message: 'Not checked: the check was cancelled before this was answered. Check again to finish it.',
        triedAt: cancelledAt,
      };
      expect(aborted?.items[0]).toEqual({
        index: 0,
        dmdCode: IBUPROFEN,
        product: cancelledItem,
        stock: cancelledItem,
        price: cancelledItem,
      });
      // Its courier was answered (one list for every order): that answer stands.
      expect(aborted?.courier).toMatchObject({ state: 'listed' });

      // A later check (reusing the answers that came) answers it: nothing reads "cancelled" any more.
      const later = await test.api.call('batches.enrich', { batchId });
      expect(later).toMatchObject({ outcome: 'complete', calls: 3, reused: 4 });
      const afterLater = await test.api.call('batches.enrichment', { batchId, offset: 0, limit: 10 });
      expect(JSON.stringify(afterLater.orders)).not.toContain('cancelled');
      expect(afterLater.orders[1]?.items[0]).toMatchObject({
        dmdCode: IBUPROFEN,
        product: { state: 'found' },
        stock: { state: 'in-stock' },
        price: { state: 'priced' },
      });
      // Paracetamol's answer is the one from before the cancel, reused, not asked again.
      expect(afterLater.orders[0]?.items[0]?.product).toMatchObject({
        state: 'found',
        checkedAt: paracetamolCheckedAt,
      });
    },
  );
});
