import { afterEach, expect, it } from 'vitest';
import {
  answerWith,
  startHostileServer,
  type HostileServer,
  rawServerClient,
} from '../service/testing/hostile-server.js';
import type { Store } from '../store/store.js';
import { LOCAL, removeDir } from '../store/testing/store-fixtures.js';
import { StatusPoller } from './status-poller.js';
import { storeWithCreatedOrder } from './testing/tracking-fixtures.js';

/**
 * A service writing dispatch dates in its own format (`05/12/2026`, .NET's en-GB default) rather than YYYY-MM-DD.
 * A dispatched order is no longer looked up on its own: its "Processed" comes from the date-range refresh, asked
 * from its dispatch date. One that cannot be read as a date counts from the order's creation instead (it was
 * dispatched after it was created). Before, such a date was skipped, the refresh asked for today only, and an order
 * dispatched on an earlier day never showed as processed.
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

const DAY_MS = 86_400_000;
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const ukDay = (ms: number) => isoDay(ms).split('-').reverse().join('/');

it('an order dispatched on an earlier day, its dispatch date not YYYY-MM-DD, gets "Processed" from the refresh', async () => {
  const world = storeWithCreatedOrder({ pharmacyOrderId: 9101 });
  ({ store, dataDir } = world);
  const { store: s, id, order } = world;
  const createdAt = Date.parse(s.orders.get(id)!.createdAt);
  const dispatchedAt = createdAt + DAY_MS;
  // Three days on: the refresh's "today" is two days after the dispatch.
  const now = () => new Date(createdAt + 3 * DAY_MS);

  let processed = false;
  const asked: string[] = [];
  const record = () => ({
    clinicOrderId: order.clinicOrderId,
    pharmacyOrderId: '9101',
    orderStatus: processed ? 'Prescription Processed' : 'Prescription Dispatched',
    dispatchDate: ukDay(dispatchedAt),
    trackingId: 'TRK9101',
  });
  server = await startHostileServer((socket, request) => {
    const url = new URL(request.target, 'http://x');
    let body: unknown[] = [record()];
    if (url.pathname.endsWith('status-date-range')) {
      const [start, end] = [url.searchParams.get('startDate')!, url.searchParams.get('endDate')!];
      asked.push(`${start}..${end}`);
      const day = isoDay(dispatchedAt);
      body = start <= day && day <= end ? [record()] : [];
    }
    answerWith(200, JSON.stringify(body), { 'content-type': 'application/json' })(socket, request);
  });
  const client = rawServerClient(server.url);
  poller = new StatusPoller(
    { store: s, clientFor: () => client, now },
    { minIntervalMs: 30, ratePerSecond: 100, dispatchRefreshMs: 0 },
  );

  await poller.refresh(LOCAL.id);
  expect(s.orders.get(id)).toMatchObject({
    remoteStatus: 'Prescription Dispatched',
    dispatchDate: ukDay(dispatchedAt),
  });

  processed = true;
  asked.length = 0;
  await poller.refresh(LOCAL.id);
  // Asked from the order's creation, so the dispatch day is in a window, where before only "today" was asked.
  expect(asked[0]?.startsWith(isoDay(createdAt))).toBe(true);
  expect(s.orders.get(id)).toMatchObject({ remoteStatus: 'Prescription Processed' });
});
