import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RxBatchApi } from '../../../shared/contract.js';
import { ContractError } from '../../../shared/errors.js';
import type { CreateWithClinicV1Input } from '../../../shared/orders.js';
import { startSandbox, type RunningSandbox } from '../../../sandbox/index.js';
import type { Core } from '../app-core.js';
import { openTestCore, type TestCore } from '../testing/test-core.js';
import { LOCAL_SANDBOX_ID } from '../environments/presets.js';
import { eighteenDigitDmd, templateCsv, uniqueOrder } from '../staging/testing/staging-fixtures.js';
import { enrichmentDeps } from './enrichment-handlers.js';
import { EnrichmentService } from './enrichment-service.js';

// The preview's "only orders with service warnings" filter: `batches.enrichment` with `onlyWarnings` pages over
// just the staged orders whose stored answers give a warning, in file order, with their count. Signed out, the
// check still runs product search, so an unknown dm+d code is a warning without any sign-in.

const PARACETAMOL = '322236009'; // the sandbox lists it
const UNKNOWN = '42109611000001109'; // a valid dm+d code the sandbox does not list
const NEVER_ASKED = eighteenDigitDmd(4321); // valid, unknown to the sandbox, and not asked about until a new check

function order(dmdCode: string): CreateWithClinicV1Input {
  const body = uniqueOrder({}, 'WRN');
  body.prescribedItems = [
    { dmdCode, medication: 'As prescribed', dosageInstructions: 'As directed', quantity: 1, pack: 1 },
  ];
  return body;
}

describe('filtering a checked batch to orders with service warnings', () => {
  let sandbox: RunningSandbox;
  let core: Core;
  let api: RxBatchApi;
  let testCore: TestCore;
  let batchId: number;

  beforeAll(async () => {
    sandbox = await startSandbox({ statusStepMs: 60_000 });
    testCore = await openTestCore('warnings-filter');
    ({ core, api } = testCore);
    const { registry } = core.services;
    await registry.update({ ...registry.get(LOCAL_SANDBOX_ID), apiBaseUrl: sandbox.apiUrl, issuer: sandbox.issuer });
    // Orders 2, 5 and 6 (1-based) name a code the service does not know.
    const codes = [PARACETAMOL, UNKNOWN, PARACETAMOL, PARACETAMOL, UNKNOWN, UNKNOWN, PARACETAMOL];
    const outcome = await api.call('import.file', {
      environmentId: LOCAL_SANDBOX_ID,
      upload: { name: 'warnings.csv', content: templateCsv(codes.map(order)) },
    });
    if (outcome.status !== 'staged') throw new Error(`not staged: ${JSON.stringify(outcome)}`);
    batchId = outcome.batchId;
  });

  afterAll(async () => {
    await testCore.close();
    await sandbox.close();
  });

  const page = (offset: number, limit: number) =>
    api.call('batches.enrichment', { batchId, offset, limit, onlyWarnings: true });

  it('finds nothing before the batch is checked', async () => {
    const before = await page(0, 50);
    expect(before.total).toBe(0);
    expect(before.orders).toEqual([]);
    expect(before.run).toBeNull();
  });

  it('pages over just the orders with warnings, in file order, and counts them', async () => {
    const run = await api.call('batches.enrich', { batchId });
    expect(run.counts.ordersWithWarnings).toBe(3);

    const first = await page(0, 2);
    expect(first.total).toBe(3);
    expect(first.orders.map((view) => view.position)).toEqual([2, 5]);
    expect(first.orders.every((view) => view.warnings.some((w) => w.code === 'service.unknownCode'))).toBe(true);
    expect(first.run?.counts.ordersWithWarnings).toBe(3);

    const second = await page(2, 2);
    expect(second.total).toBe(3);
    expect(second.orders.map((view) => view.position)).toEqual([6]);
    expect((await page(3, 50)).orders).toEqual([]);

    // Without the filter, every order comes (the filter is opt-in) and `total` is not given.
    const all = await api.call('batches.enrichment', { batchId, offset: 0, limit: 50 });
    expect(all.orders).toHaveLength(7);
    expect(all.total).toBeUndefined();
  });

  it('follows an edit: a fixed code leaves the filter at once', async () => {
    const [fifth] = (await page(1, 1)).orders;
    expect(fifth?.position).toBe(5);
    await api.call('batches.editOrder', {
      stagedOrderId: fifth!.stagedOrderId,
      edits: [{ path: 'prescribedItems.0.dmdCode', value: PARACETAMOL }],
    });
    // Only the edited order is looked at again: the batch is not walked (a 50,000-order batch took 0.4–0.5 s).
    const walks = vi.spyOn(core.services.store.enrichment, 'stagedItems');
    const after = await page(0, 50);
    expect(walks).not.toHaveBeenCalled();
    walks.mockRestore();
    expect(after.orders.map((view) => view.position)).toEqual([2, 6]);
    expect(after.total).toBe(2);
  });

  /**
   * The filter as a service with nothing kept would answer it: every page built by walking the whole batch. The
   * app's service keeps the list of warned orders between pages; its pages must be the same, page for page.
   */
  async function expectSameAsFullWalk(): Promise<number[]> {
    const everything = (await page(0, 50)).total ?? 0;
    for (const limit of [1, 2, 50]) {
      for (let offset = 0; offset <= everything; offset += limit) {
        const fresh = new EnrichmentService(enrichmentDeps(core.services));
        const expected = fresh.read(batchId, { offset, limit, onlyWarnings: true });
        const got = await page(offset, limit);
        expect({ orders: got.orders, total: got.total }).toEqual({ orders: expected.orders, total: expected.total });
      }
    }
    return (await page(0, 50)).orders.map((view) => view.position);
  }

  it('gives the same pages as a full walk of the batch, and follows a code edited in and then checked', async () => {
    expect(await expectSameAsFullWalk()).toEqual([2, 6]);

    // Order 6 gets a code the service was never asked about: "not checked yet" is no warning, so it leaves.
    const sixth = (await page(1, 1)).orders[0]!;
    expect(sixth.position).toBe(6);
    await api.call('batches.editOrder', {
      stagedOrderId: sixth.stagedOrderId,
      edits: [{ path: 'prescribedItems.0.dmdCode', value: NEVER_ASKED }],
    });
    expect(await expectSameAsFullWalk()).toEqual([2]);

    // A new check asks about it (the other answers are reused): the service does not know it, so it is back.
    await api.call('batches.enrich', { batchId });
    expect(await expectSameAsFullWalk()).toEqual([2, 6]);
    const [, back] = (await page(0, 50)).orders;
    expect(back?.warnings.map((warning) => warning.code)).toEqual(['service.unknownCode']);
  });

  it('leaves the filter to accepted orders: only staged orders are listed', async () => {
    // Fix order 2's code, so orders 2 and 6 differ: 2 becomes valid to accept without warnings, 6 keeps its warning.
    const second = (await page(0, 1)).orders[0]!;
    await api.call('batches.editOrder', {
      stagedOrderId: second.stagedOrderId,
      edits: [{ path: 'prescribedItems.0.dmdCode', value: PARACETAMOL }],
    });
    expect(await expectSameAsFullWalk()).toEqual([6]);
    await api.call('batches.accept', { batchId });
    // Every valid order went to the outbox, the warned one included (warnings never block accepting).
    expect(await expectSameAsFullWalk()).toEqual([]);
  });

  it('refuses the filter combined with a list of ids', async () => {
    const error = await api.call('batches.enrichment', { batchId, stagedOrderIds: [1], onlyWarnings: true }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(ContractError);
    expect((error as ContractError).code).toBe('invalid-input');
    expect((error as ContractError).issues?.map((issue) => issue.message)).toContain(
      'give either stagedOrderIds or offset and limit',
    );
  });
});
