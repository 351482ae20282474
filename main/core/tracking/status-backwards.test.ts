import { afterEach, expect, it } from 'vitest';
import {
  answerWith,
  startHostileServer,
  type HostileServer,
  rawServerClient,
} from '../service/testing/hostile-server.js';
import type { Store } from '../store/store.js';
import { removeDir } from '../store/testing/store-fixtures.js';
import { refreshOrder } from './refresh-order.js';
import { storeWithCreatedOrder } from './testing/tracking-fixtures.js';

/**
 * A service whose reads lag (a replica or cache behind the primary) answers an older status after a newer one: the
 * order keeps the newer status, where it went back to "Prescription at Pharmacy" after its dispatch.
 */

let server: HostileServer | undefined;
let store: Store | undefined;
let dataDir: string | undefined;
afterEach(async () => {
  store?.close();
  if (dataDir) removeDir(dataDir);
  await server?.close();
  server = store = dataDir = undefined;
});

it('a status before dispatch after the dispatch, or dispatched after processed, is not taken; forward moves are', async () => {
  const world = storeWithCreatedOrder({ pharmacyOrderId: 9003 });
  ({ store, dataDir } = world);
  const { store: s, id, order } = world;

  let status = 'Prescription Dispatched';
  server = await startHostileServer((socket, request) => {
    const record = {
      clinicOrderId: order.clinicOrderId,
      pharmacyOrderId: '9003',
      orderStatus: status,
      trackingId: 'TRK1',
    };
    answerWith(200, JSON.stringify([record]), { 'content-type': 'application/json' })(socket, request);
  });
  const client = rawServerClient(server.url);
  const refresh = async (next: string) => {
    status = next;
    await refreshOrder(s, client, id, () => new Date());
    return s.orders.get(id)!.remoteStatus;
  };

  expect(await refresh('Prescription Dispatched')).toBe('Prescription Dispatched');
  expect(await refresh('Prescription at Pharmacy')).toBe('Prescription Dispatched');
  expect(await refresh('waiting clinical check')).toBe('Prescription Dispatched');
  expect(await refresh('Prescription Processed')).toBe('Prescription Processed');
  expect(await refresh('Prescription Dispatched')).toBe('Prescription Processed');
  // A text the contract does not know is never judged: shown as it came.
  expect(await refresh('On Hold')).toBe('On Hold');
  expect(s.statusHistory.list(id).map((entry) => entry.status)).toEqual([
    'Prescription Dispatched',
    'Prescription Processed',
    'On Hold',
  ]);
});
