import { afterEach, describe, expect, it } from 'vitest';
import { verifyAuditChain } from '../audit/verify-chain.js';
import { LOCAL } from '../store/testing/store-fixtures.js';
import { acceptBatchInSteps } from './accept-batch.js';
import { StagingError } from './staging-deps.js';
import { stagingFixture, templateCsv, uniqueOrder, type StagingFixture } from './testing/staging-fixtures.js';

/**
 * A whole batch accepted in steps (issue #14): the core's loop is given back between steps, what each step queued
 * is committed and audited, and an accept stopped half-way is finished by accepting again, nothing doubled.
 */

let fixture: StagingFixture | undefined;
afterEach(() => {
  fixture?.close();
  fixture = undefined;
});

async function stagedBatch(orders: number) {
  const f = (fixture = stagingFixture());
  const list = Array.from({ length: orders }, () => uniqueOrder());
  const outcome = await f.staging.importFile({ environmentId: LOCAL.id, path: f.file('big.csv', templateCsv(list)) });
  if (outcome.status !== 'staged') throw new Error(`not staged: ${JSON.stringify(outcome)}`);
  return { f, batchId: outcome.batchId };
}

/** What acceptBatchInSteps needs, over the fixture's store. */
const depsOf = (f: StagingFixture) => ({
  store: f.store,
  codeListsFor: () => LOCAL.codeLists,
  now: () => new Date(),
});

const queuedIn = (f: StagingFixture, batchId: number) => f.store.orders.list({ batchId, limit: 10_000 }).length;

describe('accepting a batch in steps', () => {
  it('queues each step in its own transaction, gives the loop back between steps and audits each step', async () => {
    const { f, batchId } = await stagedBatch(1_200);
    const seenBetweenSteps: number[] = [];
    const outcome = await acceptBatchInSteps(depsOf(f), batchId, {
      stepOrders: 500,
      pause: async () => {
        // Between steps another reader sees what the steps before committed.
        seenBetweenSteps.push(queuedIn(f, batchId));
        await new Promise((resolve) => setImmediate(resolve));
      },
    });

    expect(outcome).toMatchObject({ accepted: 1_200, cancelled: 0, staying: 0 });
    expect(seenBetweenSteps).toEqual([500, 1_000]);
    expect(queuedIn(f, batchId)).toBe(1_200);
    const steps = f.store.audit.search({ action: 'batch.accepting' });
    expect(steps.map((entry) => entry.details['orderCount'])).toEqual([500, 500]);
    const [accepted, ...more] = f.store.audit.search({ action: 'batch.accepted' });
    expect(more).toEqual([]);
    expect(accepted?.details).toMatchObject({ orderCount: 1_200, invalidCount: 0 });
    expect(verifyAuditChain(f.store).ok).toBe(true);
  });

  it('an accept stopped half-way is finished by accepting again: every order queued once', async () => {
    const { f, batchId } = await stagedBatch(1_100);
    const stop = new Error('the app stopped');
    await expect(
      acceptBatchInSteps(depsOf(f), batchId, {
        stepOrders: 400,
        pause: () => Promise.reject(stop),
      }),
    ).rejects.toBe(stop);
    expect(queuedIn(f, batchId)).toBe(400);
    expect(f.store.stagedOrders.counts(batchId).staged).toBe(700);

    const outcome = await f.staging.acceptAll(batchId);
    expect(outcome).toMatchObject({ accepted: 700, staying: 0 });
    expect(queuedIn(f, batchId)).toBe(1_100);
    const ids = f.store.orders.list({ batchId, limit: 10_000 }).map((order) => order.clinicOrderId);
    expect(new Set(ids).size).toBe(1_100);
  });

  it('an order twice in the batch, in different steps, is queued once; the second stays staged saying why', async () => {
    const { f, batchId } = await stagedBatch(900);
    // (A CSV's rows with one id are one order's items, so the twin is made by an edit after the import.)
    const orders = f.staging.getBatch(batchId, { limit: 900 }).orders;
    const first = orders.find((order) => order.position === 11)!;
    const twin = orders.find((order) => order.position === 801)!;
    f.staging.editOrder(twin.id, { edits: [{ path: 'prescription.clinicOrderId', value: first.clinicOrderId }] });
    const outcome = await acceptBatchInSteps(depsOf(f), batchId, {
      stepOrders: 300,
      pause: () => new Promise((resolve) => setImmediate(resolve)),
    });
    expect(outcome).toMatchObject({ accepted: 899, staying: 1 });
    const [left] = f.staging.getBatch(batchId, { onlyProblems: true }).orders;
    expect(left?.position).toBe(801);
    expect(left?.problems).toEqual([expect.objectContaining({ code: 'order.duplicateInFile' })]);
    expect(queuedIn(f, batchId)).toBe(899);
  });

  it('refuses a second accept and a discard of a batch while it is being accepted', async () => {
    const { f, batchId } = await stagedBatch(1_200);
    const first = f.staging.acceptAll(batchId);
    await expect(f.staging.acceptAll(batchId)).rejects.toThrow(StagingError);
    expect(() => f.staging.discard(batchId)).toThrow(/being accepted/);
    await expect(first).resolves.toMatchObject({ accepted: 1_200 });
    // Once it has finished, a discard is judged on what the batch holds (here: nothing left to discard).
    expect(() => f.staging.discard(batchId)).toThrow(/nothing to discard/);
  });
});
