import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_LOOKUP_RECORDS, orderLookupResultSchema } from '../../../shared/service-lookup.js';
import { createOrderServiceClient } from '../service/client.js';
import { answerWith, startHostileServer, type HostileServer } from '../service/testing/hostile-server.js';
import { openStore, type Store } from '../store/store.js';
import { LOCAL, removeDir, tempDataDir } from '../store/testing/store-fixtures.js';
import { lookUpOrders } from './order-lookup.js';

// A lookup by dispatch date asks the service one window (a span of 3 days) at a time over up to 31 days, and the screen shows
// every record it gets: a busy supplier's month (or a hostile service's 10 MB answers) would reach the page whole.
// One lookup returns at most MAX_LOOKUP_RECORDS, says so, and asks no further window once it has them.

let server: HostileServer | undefined;
let store: Store | undefined;
let dir: string | undefined;
afterEach(async () => {
  await server?.close();
  store?.close();
  if (dir) removeDir(dir);
  server = store = dir = undefined;
});

function records(count: number, from: number) {
  return Array.from({ length: count }, (_, i) => ({
    clinicOrderId: `ELSEWHERE-${from + i}`,
    pharmacyOrderId: String(from + i),
    orderStatus: 'Prescription Dispatched',
    dispatchDate: '2026-11-02',
  }));
}

async function lookUp(perWindow: number) {
  server = await startHostileServer();
  let window = 0;
  server.answer((socket) => {
    window += 1;
    answerWith(200, JSON.stringify(records(perWindow, window * 100_000)), { 'content-type': 'application/json' })(
      socket,
      server!.requests.at(-1)!,
    );
  });
  dir = tempDataDir('rx-lookup-');
  store = openStore({ dataDir: join(dir, 'data') });
  store.environments.upsert(LOCAL);
  const client = createOrderServiceClient({
    apiBaseUrl: server.url,
    tokens: { getAccessToken: () => Promise.resolve('token'), refresh: () => Promise.resolve(false) },
    timeoutMs: 5_000,
    userAgent: 'RxBatch/lookup-test',
    createWithClinicVersion: 'v1',
  });
  const result = await lookUpOrders(store, LOCAL.id, client, {
    by: 'dispatchDate',
    startDate: '2026-11-01',
    endDate: '2026-11-30',
  });
  return { result, asked: server.requests.filter((r) => r.target.includes('status-date-range')).length };
}

describe('a lookup by dispatch date returns a page, not the service’s whole month', () => {
  it('stops at MAX_LOOKUP_RECORDS and says so, asking no further window', async () => {
    const { result, asked } = await lookUp(600);
    expect(orderLookupResultSchema.safeParse(result).success).toBe(true);
    expect(result.records).toHaveLength(MAX_LOOKUP_RECORDS);
    expect(result.truncated).toBe(true);
    expect(result.error).toBeNull();
    // 600 a window: the second window passes the cap, so the other six of the month's eight are not asked.
    expect(asked).toBe(2);
    expect(result.windows).toHaveLength(2);
    expect(result.records[0]).toMatchObject({ clinicOrderId: 'ELSEWHERE-100000', localOrderId: null });
  });

  it('returns every record when the service lists fewer', async () => {
    const { result, asked } = await lookUp(20);
    expect(result.records).toHaveLength(160);
    expect(result.truncated).toBe(false);
    expect(asked).toBe(8);
    expect(result.windows).toHaveLength(8);
  });
});

describe('a lookup by clinic order id within a clinic', () => {
  it("shows no order the service says is another clinic's (a service that ignored the clinic filter)", async () => {
    const listed = [
      { clinicOrderId: 'RX-1', clinicCode: 'ELSEWHERE', pharmacyOrderId: '5', orderStatus: 'Cancelled' },
      { clinicOrderId: 'RX-1', clinicCode: 'CLINIC-A', pharmacyOrderId: '6', orderStatus: 'Waiting Clinical Check' },
      { clinicOrderId: 'RX-1', pharmacyOrderId: '7', orderStatus: 'Waiting Clinical Check' },
    ];
    server = await startHostileServer(answerWith(200, JSON.stringify(listed), { 'content-type': 'application/json' }));
    dir = tempDataDir('rx-lookup-');
    store = openStore({ dataDir: join(dir, 'data') });
    store.environments.upsert(LOCAL);
    const client = createOrderServiceClient({
      apiBaseUrl: server.url,
      tokens: { getAccessToken: () => Promise.resolve('token'), refresh: () => Promise.resolve(false) },
      timeoutMs: 5_000,
      userAgent: 'RxBatch/lookup-test',
      createWithClinicVersion: 'v1',
    });
    const result = await lookUpOrders(store, LOCAL.id, client, {
      by: 'clinicOrderId',
      clinicCode: 'CLINIC-A',
      clinicOrderId: 'RX-1',
    });
    expect(result.records.map((record) => record.pharmacyOrderId)).toEqual(['6', '7']);
  });
});

describe('a lookup of one order the service refused', () => {
  async function lookUpById(status: number, body: string, contentType = 'application/json') {
    server = await startHostileServer();
    server.answer(answerWith(status, body, { 'content-type': contentType }));
    dir = tempDataDir('rx-lookup-');
    store = openStore({ dataDir: join(dir, 'data') });
    store.environments.upsert(LOCAL);
    const client = createOrderServiceClient({
      apiBaseUrl: server.url,
      tokens: { getAccessToken: () => Promise.resolve('token'), refresh: () => Promise.resolve(false) },
      timeoutMs: 5_000,
      userAgent: 'RxBatch/lookup-test',
      createWithClinicVersion: 'v1',
    });
    return lookUpOrders(store, LOCAL.id, client, { by: 'pharmacyOrderId', pharmacyOrderId: 4711 });
  }

  it('finds nothing when the service says it has no such order', async () => {
    const result = await lookUpById(404, JSON.stringify({ error: 'Order not found', status: 404 }));
    expect(result).toMatchObject({ records: [], error: null });
  });

  it('finds nothing when the service answers 204 No Content (ASP.NET Core’s answer for none)', async () => {
    // Before, the screen showed the failure "the answer was empty".
    const result = await lookUpById(204, '');
    expect(result).toMatchObject({ records: [], error: null });
  });

  it.each([
    [
      "a proxy's 404 page",
      404,
      '<html><head><title>404 Not Found</title></head><body>nginx</body></html>',
      'text/html',
    ],
    ['a bare "Not Found"', 404, 'Not Found', 'text/plain'],
    ['a 400 about the clinic code', 400, JSON.stringify({ error: 'Invalid clinic code', status: 400 }), undefined],
  ])('shows %s as a failure, not as "no order"', async (_, status, body, contentType) => {
    const result = await lookUpById(status, body, contentType);
    expect(result.records).toEqual([]);
    // Before, `error` was null and the screen said "No order with pharmacy order id 4711".
    expect(result.error).toMatchObject({ kind: 'rejected', status });
  });
});
