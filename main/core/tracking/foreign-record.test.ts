import { afterEach, expect, it } from 'vitest';
import {
  answerWith,
  startHostileServer,
  type HostileServer,
  rawServerClient,
} from '../service/testing/hostile-server.js';
import type { Store } from '../store/store.js';
import { LOCAL, removeDir } from '../store/testing/store-fixtures.js';
import { refreshOrder } from './refresh-order.js';
import { StatusPoller } from './status-poller.js';
import { storeWithCreatedOrder } from './testing/tracking-fixtures.js';

/**
 * A service that answers a status lookup with another order's record under this order's pharmacy id: the
 * poller's single lookups, its date-range refresh and the detail view's refresh leave the order alone.
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

it("a record with this order's pharmacy id and another clinic order id changes nothing; this order's own does", async () => {
  const world = storeWithCreatedOrder();
  ({ store, dataDir } = world);
  const { store: s, id, order } = world;

  let record = { clinicOrderId: 'SOMEONE-ELSES-7', pharmacyOrderId: '9001', orderStatus: 'Cancelled' };
  server = await startHostileServer((socket, request) => {
    answerWith(200, JSON.stringify([record]), { 'content-type': 'application/json' })(socket, request);
  });
  const client = rawServerClient(server.url);
  poller = new StatusPoller(
    { store: s, clientFor: () => client },
    { minIntervalMs: 30, ratePerSecond: 100, dispatchRefreshMs: 0 },
  );

  await poller.refresh(LOCAL.id);
  expect((await refreshOrder(s, client, id, () => new Date())).changed).toEqual([]);
  // Both the single lookup and the date-range refresh were asked, and neither touched the order.
  expect(server.requests.some((r) => r.target.includes('status-with-clinic-code'))).toBe(true);
  expect(server.requests.some((r) => r.target.includes('status-date-range'))).toBe(true);
  expect(s.orders.get(id)).toMatchObject({ state: 'created', remoteStatus: null });
  expect(s.statusHistory.list(id)).toEqual([]);

  record = { clinicOrderId: order.clinicOrderId, pharmacyOrderId: '9001', orderStatus: 'Waiting Clinical Check' };
  await poller.refresh(LOCAL.id);
  expect(s.orders.get(id)).toMatchObject({ state: 'created', remoteStatus: 'Waiting Clinical Check' });
});

it("a record with this order's ids that says it is another clinic's changes nothing; one naming this clinic does", async () => {
  const world = storeWithCreatedOrder({ order: { clinicCode: 'CLINIC-OURS' }, pharmacyOrderId: 9002 });
  ({ store, dataDir } = world);
  const { store: s, id, order } = world;

  // Clinic order ids are unique per clinic only: the same id and pharmacy id, but in another clinic's name.
  let record = {
    clinicOrderId: order.clinicOrderId,
    pharmacyOrderId: '9002',
    clinicCode: 'CLINIC-ELSEWHERE',
    orderStatus: 'Cancelled',
  };
  server = await startHostileServer((socket, request) => {
    answerWith(200, JSON.stringify([record]), { 'content-type': 'application/json' })(socket, request);
  });
  const client = rawServerClient(server.url);
  poller = new StatusPoller(
    { store: s, clientFor: () => client },
    { minIntervalMs: 30, ratePerSecond: 100, dispatchRefreshMs: 0 },
  );

  await poller.refresh(LOCAL.id);
  expect((await refreshOrder(s, client, id, () => new Date())).changed).toEqual([]);
  expect(s.orders.get(id)).toMatchObject({ state: 'created', remoteStatus: null });
  expect(s.statusHistory.list(id)).toEqual([]);

  // The same record in our clinic's name (another case, as some services write it) is this order's, and so is its
  // clinic order id padded as a fixed-width column gives it.
  record = {
    ...record,
    clinicCode: ' clinic-ours',
    clinicOrderId: order.clinicOrderId.padEnd(24),
    orderStatus: 'Waiting Clinical Check',
  };
  await poller.refresh(LOCAL.id);
  expect(s.orders.get(id)).toMatchObject({ state: 'created', remoteStatus: 'Waiting Clinical Check' });
});
