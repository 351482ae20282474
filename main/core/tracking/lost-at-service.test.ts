import { afterEach, describe, expect, it } from 'vitest';
import { verifyAuditChain } from '../audit/verify-chain.js';
import type { OrderServiceClient } from '../service/client.js';
import {
  answerWith,
  startHostileServer,
  type HostileServer,
  rawServerClient,
} from '../service/testing/hostile-server.js';
import { openStore, type Store } from '../store/store.js';
import { LOCAL, manualClock, removeDir } from '../store/testing/store-fixtures.js';
import { toOrderSummary } from '../views.js';
import { FOUND_AT_SERVICE_ACTION, LOST_AT_SERVICE_ACTION, NOT_FOUND_FOR_MS } from './lost-at-service.js';
import { refreshOrder } from './refresh-order.js';
import { StatusPoller } from './status-poller.js';
import { storeWithCreatedOrder } from './testing/tracking-fixtures.js';

/**
 * A created order the service stops finding (the real poller, a real store file, a raw loopback service whose
 * answer each test sets): flagged once for a person after 3 misses in a row and an hour, kept across a restart,
 * cleared by the first lookup that finds it; one audit entry each way, none per miss.
 */

const MINUTE = 60_000;
const PHARMACY_ID = 9001;

type Answer = 'empty' | 'not-found' | 'unknown-id' | 'proxy-page' | 'forbidden' | 'server-error' | 'found';

const NGINX_404 =
  '<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n<center><h1>404 Not Found</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';

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

async function world() {
  const clock = manualClock();
  const made = storeWithCreatedOrder({ now: clock.now, pharmacyOrderId: PHARMACY_ID });
  ({ store, dataDir } = made);
  const { order } = made;
  const service = { answer: 'empty' as Answer };
  const envelope = (status: number, error: string) => JSON.stringify({ error, status, details: { message: error } });
  server = await startHostileServer((socket, request) => {
    const json = { 'content-type': 'application/json' };
    const record = JSON.stringify({
      clinicOrderId: order.clinicOrderId,
      pharmacyOrderId: String(PHARMACY_ID),
      orderStatus: 'Waiting Clinical Check',
    });
    if (request.target.startsWith('/api/v2/Order/status-date-range'))
      return answerWith(200, '[]', json)(socket, request);
    if (service.answer === 'proxy-page')
      return answerWith(404, NGINX_404, { 'content-type': 'text/html' })(socket, request);
    const answers: Record<Exclude<Answer, 'proxy-page'>, [number, string]> = {
      empty: [200, '[]'],
      'not-found': [404, envelope(404, 'Order not found')],
      'unknown-id': [400, envelope(400, 'Unknown order id')],
      forbidden: [403, envelope(403, 'Forbidden')],
      'server-error': [503, envelope(503, 'Service Unavailable')],
      found: [200, `[${record}]`],
    };
    const [status, body] = answers[service.answer];
    answerWith(status, body, json)(socket, request);
  });
  const client = rawServerClient(server.url);
  const flagged: number[] = [];
  const startPoller = (on: Store) =>
    new StatusPoller(
      { store: on, clientFor: () => client, now: clock.now, onServiceNote: (_env, orderId) => flagged.push(orderId) },
      { minIntervalMs: 30, ratePerSecond: 100 },
    );
  poller = startPoller(made.store);
  return { clock, id: made.id, clinicOrderId: order.clinicOrderId, service, client, flagged, startPoller };
}

const entries = (s: Store, id: number, action: string) => s.audit.forOrder(id).filter((e) => e.action === action);

describe('an order the service no longer finds', () => {
  it('is flagged once after 3 misses in a row and an hour, kept across a restart, and cleared when found', async () => {
    const w = await world();
    const start = w.clock.now().toISOString();
    const miss = async (answer: Answer, afterMs: number) => {
      w.clock.advance(afterMs);
      w.service.answer = answer;
      return poller!.refresh(LOCAL.id);
    };

    // Three misses (an empty list, a 404, a 400 "unknown order id") within 50 minutes: counted, nothing raised.
    await miss('empty', 0);
    await miss('not-found', 30 * MINUTE);
    await miss('unknown-id', 20 * MINUTE);
    expect(store!.orders.get(w.id)!.notFound).toEqual({ lookups: 3, since: start, flaggedAt: null });
    expect(entries(store!, w.id, LOST_AT_SERVICE_ACTION)).toEqual([]);
    expect(toOrderSummary(store!.orders.get(w.id)!).notFoundAtService).toBeUndefined();
    expect(w.flagged).toEqual([]);

    // The fourth, past the hour since the first: flagged, with one entry naming the order by its ids only.
    const flaggedAt = new Date(w.clock.now().getTime() + 15 * MINUTE).toISOString();
    const round = await miss('empty', 15 * MINUTE);
    expect(round.changed).toEqual([w.id]);
    const order = store!.orders.get(w.id)!;
    expect(order).toMatchObject({ state: 'created', remoteStatus: null, pharmacyOrderId: PHARMACY_ID });
    expect(order.notFound).toEqual({ lookups: 4, since: start, flaggedAt });
    const reason =
      `the service has not found order ${w.clinicOrderId} (pharmacy id ${PHARMACY_ID}) on 4 lookups since ` +
      '2025-03-03 09:00 UTC; it may have been removed at the service, or this environment points at another service';
    const [raised, ...more] = entries(store!, w.id, LOST_AT_SERVICE_ACTION);
    expect(more).toEqual([]);
    expect(raised).toMatchObject({
      actor: 'system',
      at: flaggedAt,
      environmentId: LOCAL.id,
      clinicOrderId: w.clinicOrderId,
      details: { operation: 'status', outcome: 'not-found', remoteId: String(PHARMACY_ID), errorMessage: reason },
    });
    expect(toOrderSummary(order).notFoundAtService).toEqual({ lookups: 4, since: start, flaggedAt });
    expect(w.flagged).toEqual([w.id]);

    // More misses, of every kind that says "no such order", add to the count and to nothing else; polling goes on.
    await miss('not-found', 16 * MINUTE);
    await miss('empty', 16 * MINUTE);
    expect(store!.orders.get(w.id)!.notFound).toMatchObject({ lookups: 6, since: start, flaggedAt });
    expect(entries(store!, w.id, LOST_AT_SERVICE_ACTION)).toHaveLength(1);
    expect(w.flagged).toEqual([w.id]);

    // A restart (a new store object on the same file, a new poller) keeps the flag and the count.
    await poller!.close();
    store!.close();
    store = openStore({ dataDir: dataDir!, now: w.clock.now });
    poller = w.startPoller(store);
    expect(store.orders.get(w.id)!.notFound).toEqual({ lookups: 6, since: start, flaggedAt });
    await miss('empty', 16 * MINUTE);
    expect(store.orders.get(w.id)!.notFound).toMatchObject({ lookups: 7, flaggedAt });
    expect(entries(store, w.id, LOST_AT_SERVICE_ACTION)).toHaveLength(1);

    // Found again: the flag clears with one entry, the status is taken as ever, and the order carries on.
    const cleared = await miss('found', 16 * MINUTE);
    expect(cleared.changed).toEqual([w.id]);
    expect(store.orders.get(w.id)).toMatchObject({
      state: 'created',
      remoteStatus: 'Waiting Clinical Check',
      notFound: null,
    });
    expect(entries(store, w.id, FOUND_AT_SERVICE_ACTION)).toHaveLength(1);
    expect(entries(store, w.id, FOUND_AT_SERVICE_ACTION)[0]).toMatchObject({
      details: { operation: 'status', outcome: 'found', remoteId: String(PHARMACY_ID) },
    });
    expect(toOrderSummary(store.orders.get(w.id)!).notFoundAtService).toBeUndefined();
    await miss('found', 16 * MINUTE);
    expect(entries(store, w.id, FOUND_AT_SERVICE_ACTION)).toHaveLength(1);

    // A later miss starts a new run from one.
    await miss('empty', MINUTE);
    expect(store.orders.get(w.id)!.notFound).toEqual({
      lookups: 1,
      since: w.clock.now().toISOString(),
      flaggedAt: null,
    });
    expect(entries(store, w.id, LOST_AT_SERVICE_ACTION)).toHaveLength(1);
    expect(verifyAuditChain(store)).toMatchObject({ ok: true });
  });

  it('needs the misses in a row as well as the hour: two hours between two misses raise nothing', async () => {
    const w = await world();
    const lookUp = async (answer: Answer, afterMs: number) => {
      w.clock.advance(afterMs);
      w.service.answer = answer;
      await poller!.refresh(LOCAL.id);
    };
    await lookUp('empty', 0);
    await lookUp('empty', 2 * NOT_FOUND_FOR_MS);
    expect(store!.orders.get(w.id)!.notFound).toMatchObject({ lookups: 2, flaggedAt: null });
    // A lookup that finds it ends the run: the next two misses are the first two of a new one.
    await lookUp('found', MINUTE);
    expect(store!.orders.get(w.id)!.notFound).toBeNull();
    await lookUp('empty', MINUTE);
    await lookUp('empty', NOT_FOUND_FOR_MS);
    expect(store!.orders.get(w.id)!.notFound).toMatchObject({ lookups: 2, flaggedAt: null });
    await lookUp('empty', MINUTE);
    expect(store!.orders.get(w.id)!.notFound).toMatchObject({ lookups: 3, flaggedAt: expect.any(String) as unknown });
    expect(entries(store!, w.id, LOST_AT_SERVICE_ACTION)).toHaveLength(1);
    // Nothing was written for the found lookup that ended a run that was never flagged.
    expect(entries(store!, w.id, FOUND_AT_SERVICE_ACTION)).toEqual([]);
  });

  it('counts no refusal that is not "no such order", nor an outage', async () => {
    const w = await world();
    for (const answer of ['forbidden', 'server-error'] as const) {
      w.clock.advance(NOT_FOUND_FOR_MS);
      w.service.answer = answer;
      await poller!.refresh(LOCAL.id);
    }
    expect(store!.orders.get(w.id)!.notFound).toBeNull();
  });

  it("counts no proxy's 404 page, through the poller or the detail view; the service's own 404 still counts", async () => {
    const w = await world();
    w.service.answer = 'proxy-page';
    for (let lookup = 0; lookup < 4; lookup += 1) {
      w.clock.advance(NOT_FOUND_FOR_MS);
      await poller!.refresh(LOCAL.id);
      await refreshOrder(store!, w.client, w.id, w.clock.now);
    }
    // Asked every time, and answered with the page: a refusal, but nobody's word on this order.
    expect(server!.requests.filter((r) => r.target.includes('status-with-clinic-code'))).toHaveLength(8);
    expect(store!.orders.get(w.id)!.notFound).toBeNull();
    expect(entries(store!, w.id, LOST_AT_SERVICE_ACTION)).toEqual([]);

    w.service.answer = 'not-found';
    await poller!.refresh(LOCAL.id);
    w.clock.advance(NOT_FOUND_FOR_MS);
    await refreshOrder(store!, w.client, w.id, w.clock.now);
    w.clock.advance(MINUTE);
    await poller!.refresh(LOCAL.id);
    expect(store!.orders.get(w.id)!.notFound).toMatchObject({ lookups: 3, flaggedAt: expect.any(String) as unknown });
    expect(entries(store!, w.id, LOST_AT_SERVICE_ACTION)).toHaveLength(1);
    expect(w.flagged).toEqual([w.id]);
  });

  it("counts and clears through the detail view's lookup as through the poller's", async () => {
    const w = await world();
    const client: OrderServiceClient = w.client;
    // Told as the poller tells its flags (AppServices turns both into the same notification): once per flag.
    const told: Array<[string, number]> = [];
    const tell = (environmentId: string, orderId: number) => told.push([environmentId, orderId]);
    for (const afterMs of [0, 30 * MINUTE, 31 * MINUTE, 5 * MINUTE]) {
      w.clock.advance(afterMs);
      await refreshOrder(store!, client, w.id, w.clock.now, tell);
    }
    expect(store!.orders.get(w.id)!.notFound).toMatchObject({ lookups: 4, flaggedAt: expect.any(String) as unknown });
    expect(told).toEqual([[LOCAL.id, w.id]]);
    w.service.answer = 'found';
    expect((await refreshOrder(store!, client, w.id, w.clock.now, tell)).changed).toEqual([w.id]);
    expect(told).toHaveLength(1);
    expect(store!.orders.get(w.id)!.notFound).toBeNull();
    expect(entries(store!, w.id, LOST_AT_SERVICE_ACTION)).toHaveLength(1);
    expect(entries(store!, w.id, FOUND_AT_SERVICE_ACTION)).toHaveLength(1);
  });
});
