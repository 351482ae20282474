import { afterEach, expect, it } from 'vitest';
import { createOrderServiceClient } from '../service/client.js';
import { answerWith, startHostileServer, type HostileServer } from '../service/testing/hostile-server.js';
import { enqueueOrders, type Store } from '../store/store.js';
import { LOCAL, removeDir, sampleOrder, storeWithBatch } from '../store/testing/store-fixtures.js';
import { StatusPoller } from './status-poller.js';

/**
 * A service whose status records carry megabytes in the texts the app keeps (the status, the tracking id, the dispatch
 * date), new on each poll. Each was stored whole with the order and as a new history row on every change: a
 * megabyte a poll, for every order watched. Now each is kept to a bound, marked "…" when cut. Real store, real client
 * and poller, over loopback from a raw server.
 */

let server: HostileServer | undefined;
let store: Store | undefined;
let dataDir: string | undefined;
let poller: StatusPoller | undefined;
afterEach(async () => {
  await poller?.close();
  store?.close();
  if (dataDir) removeDir(dataDir);
  await server?.close();
  server = store = dataDir = poller = undefined;
});

it('keeps each text of a status record to a bound, marked as cut', async () => {
  const world = storeWithBatch();
  ({ store, dataDir } = world);
  const s = store;
  const order = sampleOrder();
  const [id] = enqueueOrders(s, world.batchId, [order]);
  s.orders.transition(
    id!,
    ['queued'],
    'created',
    { pharmacyOrderId: 9001 },
    { actor: 'submitter', action: 'order.created' },
  );

  let poll = 0;
  server = await startHostileServer((socket, request) => {
    if (request.target.startsWith('/api/v2/Order/status-date-range')) {
      return answerWith(200, '[]', { 'content-type': 'application/json' })(socket, request);
    }
    poll += 1;
    const record = {
      clinicOrderId: order.clinicOrderId,
      pharmacyOrderId: '9001',
      orderStatus: `Held ${String(poll)} ${'s'.repeat(1_000_000)}`,
      trackingId: `TRK${String(poll)}${'t'.repeat(1_000_000)}`,
      dispatchDate: `2026-12-0${String(poll)}${'d'.repeat(1_000_000)}`,
    };
    answerWith(200, JSON.stringify([record]), { 'content-type': 'application/json' })(socket, request);
  });
  const client = createOrderServiceClient({
    apiBaseUrl: server.url,
    tokens: { getAccessToken: () => Promise.resolve('token'), refresh: () => Promise.resolve(false) },
    timeoutMs: 5_000,
    userAgent: 'RxBatch/test',
    createWithClinicVersion: 'v1',
  });
  poller = new StatusPoller({ store: s, clientFor: () => client }, { minIntervalMs: 30, ratePerSecond: 100 });

  await poller.refresh(LOCAL.id);
  await poller.refresh(LOCAL.id);
  expect(poll).toBe(2);
  const kept = s.orders.get(id!)!;
  expect(kept.remoteStatus).toBe(`Held 2 ${'s'.repeat(193)}…`);
  expect(kept.trackingId).toBe(`TRK2${'t'.repeat(196)}…`);
  expect(kept.dispatchDate).toBe(`2026-12-02${'d'.repeat(54)}…`);
  const history = s.statusHistory.list(id!);
  expect(history).toHaveLength(2);
  for (const row of history) {
    expect(row.status.length).toBeLessThanOrEqual(201);
    expect(row.trackingId?.length).toBeLessThanOrEqual(201);
    expect(row.dispatchDate?.length).toBeLessThanOrEqual(65);
  }
});
