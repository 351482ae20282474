import { afterEach, expect, it } from 'vitest';
import { enqueueOrders } from '../core/store/store.js';
import { manualClock, removeDir, sampleOrder, storeWithBatch } from '../core/store/testing/store-fixtures.js';
import { noteListedDifferently } from '../core/tracking/listed-differently.js';
import { noteNotFound } from '../core/tracking/lost-at-service.js';
import { runCliCaptured } from './testing/run-cli-captured.js';

/**
 * `rx-batch status` names an order the service no longer finds, or lists under other ids, as needing attention (exit
 * 1), with the reason, while its state stays `created`; JSON gives the flag or the note too.
 */

let dataDir: string | undefined;
afterEach(() => {
  if (dataDir) removeDir(dataDir);
  dataDir = undefined;
});

it('shows an order flagged as not found at the service with its reason, and exits 1', async () => {
  const clock = manualClock();
  const made = storeWithBatch(clock.now);
  const { store } = made;
  dataDir = made.dataDir;
  const order = sampleOrder();
  const since = clock.now().toISOString();
  try {
    const [id] = enqueueOrders(store, made.batchId, [order]);
    store.orders.transition(
      id!,
      ['queued'],
      'created',
      { pharmacyOrderId: 9001 },
      { actor: 'submitter', action: 'order.created' },
    );
    for (const afterMs of [0, 30 * 60_000, 31 * 60_000]) {
      clock.advance(afterMs);
      noteNotFound(store, store.orders.get(id!)!, clock.now());
    }
  } finally {
    store.close();
  }

  const shown = await runCliCaptured(['status', '--data-dir', dataDir]);
  expect(shown.code).toBe(1);
  const line = shown.stdout.split('\n').find((text) => text.includes(order.clinicOrderId))!;
  expect(line).toMatch(/ created +9001 /);
  expect(line).toContain(
    `: the service has not found order ${order.clinicOrderId} (pharmacy id 9001) on 3 lookups since 2025-03-03 09:00 UTC; it may have been removed at the service, or this environment points at another service`,
  );

  const json = await runCliCaptured(['status', '--json', '--data-dir', dataDir]);
  expect(json.code).toBe(1);
  const [row] = JSON.parse(json.stdout) as Array<Record<string, unknown>>;
  expect(row).toMatchObject({
    state: 'created',
    notFoundAtService: {
      lookups: 3,
      since,
      flaggedAt: clock.now().toISOString(),
      reason: expect.stringMatching(/^the service has not found/) as unknown,
    },
  });
});

it('shows an order the service lists under other ids with what it listed, and exits 1', async () => {
  const clock = manualClock();
  const made = storeWithBatch(clock.now);
  const { store } = made;
  dataDir = made.dataDir;
  const order = sampleOrder({ clinicOrderId: 'RX-CASE-2' });
  try {
    const [id] = enqueueOrders(store, made.batchId, [order]);
    store.orders.transition(
      id!,
      ['queued'],
      'created',
      { pharmacyOrderId: 9001 },
      { actor: 'submitter', action: 'order.created' },
    );
    noteListedDifferently(store, store.orders.get(id!)!, { clinicOrderId: 'rx-case-2', pharmacyOrderId: '9001' });
  } finally {
    store.close();
  }

  const shown = await runCliCaptured(['status', '--data-dir', dataDir]);
  expect(shown.code).toBe(1);
  const line = shown.stdout.split('\n').find((text) => text.includes('RX-CASE-2'))!;
  expect(line).toMatch(/ created +9001 /);
  expect(line).toContain(
    ': the service lists order RX-CASE-2 (pharmacy id 9001) as clinic order id "rx-case-2", pharmacy id 9001: its clinic order id differs only in case or spaces',
  );

  const json = await runCliCaptured(['status', '--json', '--data-dir', dataDir]);
  expect(json.code).toBe(1);
  const [row] = JSON.parse(json.stdout) as Array<Record<string, unknown>>;
  expect(row).toMatchObject({
    state: 'created',
    notFoundAtService: null,
    listedDifferently: {
      clinicOrderId: 'rx-case-2',
      pharmacyOrderId: '9001',
      at: clock.now().toISOString(),
      reason: expect.stringMatching(/^the service lists order RX-CASE-2/) as unknown,
    },
  });
});
