import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RxBatchApi } from '../../../shared/contract.js';
import { ContractError } from '../../../shared/errors.js';
import { openTestCore, type TestCore } from '../testing/test-core.js';
import { LOCAL_SANDBOX_ID } from '../environments/presets.js';
import { templateCsv, uniqueOrder } from '../staging/testing/staging-fixtures.js';

// The enrichment calls as any front end makes them: every input is untrusted, refused with a clear reason before
// the core sees it; a batch never checked reads as "not checked yet". No service is needed for any of this.
describe('the enrichment calls of the contract', () => {
  let api: RxBatchApi;
  let testCore: TestCore;
  let batchId: number;
  let otherBatchOrderId: number;

  async function importBatch(): Promise<number> {
    const outcome = await api.call('import.file', {
      environmentId: LOCAL_SANDBOX_ID,
      upload: { name: 'orders.csv', content: templateCsv([uniqueOrder(), uniqueOrder()]) },
    });
    if (outcome.status !== 'staged') throw new Error('not staged');
    return outcome.batchId;
  }

  beforeAll(async () => {
    testCore = await openTestCore('enrichment-contract');
    ({ api } = testCore);
    batchId = await importBatch();
    const other = await api.call('batches.get', { batchId: await importBatch(), limit: 1 });
    otherBatchOrderId = other.orders[0]!.id;
  });

  afterAll(async () => {
    await testCore.close();
  });

  async function refusal(call: Promise<unknown>): Promise<ContractError> {
    const error = await call.then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(ContractError);
    expect((error as ContractError).code).toBe('invalid-input');
    return error as ContractError;
  }

  const call = (name: 'batches.enrich' | 'batches.enrichment' | 'batches.enrichCancel', input: unknown) =>
    api.call(name, input as never);

  it('refuses malformed input to every call, naming what is wrong', async () => {
    for (const input of [
      {},
      { batchId: 0 },
      { batchId: -3 },
      { batchId: 1.5 },
      { batchId: '1' },
      { batchId: 2 ** 60 },
      { batchId: 1, extra: true },
      { batchId: 1, reuseWithinSeconds: -1 },
      { batchId: 1, reuseWithinSeconds: 86_401 },
      { batchId: 1, reuseWithinSeconds: 'soon' },
    ]) {
      await refusal(call('batches.enrich', input));
    }
    for (const input of [{}, { batchId: 'x' }, { batchId: 1, now: true }]) {
      await refusal(call('batches.enrichCancel', input));
    }
    for (const input of [
      { batchId: 1, stagedOrderIds: [1], offset: 0 },
      { batchId: 1, stagedOrderIds: Array.from({ length: 201 }, (_, i) => i + 1) },
      { batchId: 1, stagedOrderIds: [0] },
      { batchId: 1, stagedOrderIds: 'all' },
      { batchId: 1, limit: 0 },
      { batchId: 1, limit: 201 },
      { batchId: 1, offset: -1 },
    ]) {
      await refusal(call('batches.enrichment', input));
    }
    const both = await refusal(call('batches.enrichment', { batchId: 1, stagedOrderIds: [1], limit: 5 }));
    expect(both.issues?.map((issue) => issue.message)).toContain('give either stagedOrderIds or offset and limit');
    const range = await refusal(call('batches.enrich', { batchId: 1, reuseWithinSeconds: 86_401 }));
    expect(range.issues?.[0]?.path).toBe('reuseWithinSeconds');
  });

  it('refuses batches and orders that do not exist or belong elsewhere, in plain words', async () => {
    expect((await refusal(api.call('batches.enrich', { batchId: 999_999 }))).message).toBe('there is no batch 999999');
    expect((await refusal(api.call('batches.enrichment', { batchId: 999_999 }))).message).toBe(
      'there is no batch 999999',
    );
    expect(
      (await refusal(api.call('batches.enrichment', { batchId, stagedOrderIds: [otherBatchOrderId] }))).message,
    ).toBe(`staged order ${otherBatchOrderId} is not in batch ${batchId}`);
    expect(await api.call('batches.enrichCancel', { batchId: 999_999 })).toEqual({ cancelled: false });
  });

  it('reads a batch never checked as "not checked yet", without calling anything', async () => {
    const state = await api.call('batches.enrichment', { batchId });
    expect(state).toMatchObject({ batchId, run: null, progress: null });
    expect(state.orders).toHaveLength(2);
    for (const order of state.orders) {
      expect(order.warnings).toEqual([]);
      expect(order.courier).toMatchObject({ state: 'not-checked', reason: 'never' });
      expect(order.items[0]).toMatchObject({
        product: { state: 'not-checked', reason: 'never', message: 'Not checked yet: use "Check products and stock".' },
        stock: { state: 'not-checked', reason: 'never' },
        price: { state: 'not-checked', reason: 'never' },
      });
    }
    const ids = state.orders.map((order) => order.stagedOrderId);
    expect(
      (await api.call('batches.enrichment', { batchId, stagedOrderIds: [ids[1]!] })).orders.map((o) => o.stagedOrderId),
    ).toEqual([ids[1]]);
    expect((await api.call('batches.enrichment', { batchId, stagedOrderIds: [] })).orders).toEqual([]);
  });
});
