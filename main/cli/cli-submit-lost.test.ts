import { afterEach, expect, it } from 'vitest';
import { enqueueOrders } from '../core/store/store.js';
import { LOCAL, manualClock, removeDir, sampleOrder, storeWithBatch } from '../core/store/testing/store-fixtures.js';
import { noteNotFound } from '../core/tracking/lost-at-service.js';
import { runCliCaptured } from './testing/run-cli-captured.js';

/**
 * `rx-batch submit` counts an order flagged as not found at the service among those that need attention (exit 1), as
 * `status` lists it, though its state is `created`.
 */

const ENV = 'remote-prod';

let dataDir: string | undefined;
afterEach(() => {
  if (dataDir) removeDir(dataDir);
  dataDir = undefined;
});

it('counts an order flagged as not found at the service as needing attention, and exits 1', async () => {
  const clock = manualClock();
  const made = storeWithBatch(clock.now);
  const { store } = made;
  dataDir = made.dataDir;
  try {
    // Nothing to send: submit --until-idle is idle at once, without a word to the service (nothing listens here).
    store.environments.upsert({
      ...LOCAL,
      id: ENV,
      name: ENV,
      kind: 'remote',
      apiBaseUrl: 'http://127.0.0.1:9/',
      clientId: 'rx-batch',
    });
    const batch = store.batches.create({
      environmentId: ENV,
      sourceFileName: 'orders.csv',
      kind: 'csv',
      rowCount: 2,
      invalidCount: 0,
    });
    const [lost, fine] = enqueueOrders(store, batch.id, [sampleOrder(), sampleOrder()]);
    for (const [id, pharmacyOrderId] of [
      [lost!, 9001],
      [fine!, 9002],
    ] as const) {
      store.orders.transition(id, ['queued'], 'created', { pharmacyOrderId }, { actor: 'submitter', action: 'x.y' });
    }
    for (const afterMs of [0, 30 * 60_000, 31 * 60_000]) {
      clock.advance(afterMs);
      noteNotFound(store, store.orders.get(lost!)!, clock.now());
    }
    expect(store.orders.get(lost!)!.notFound?.flaggedAt).toEqual(expect.any(String));
  } finally {
    store.close();
  }

  const submitted = await runCliCaptured(['submit', '--env', ENV, '--until-idle', '--data-dir', dataDir]);
  expect(submitted.stdout).toContain('1 order needs attention: see rx-batch status.');
  expect(submitted.code).toBe(1);
});
