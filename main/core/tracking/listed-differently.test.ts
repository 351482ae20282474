import { afterEach, describe, expect, it } from 'vitest';
import { verifyAuditChain } from '../audit/verify-chain.js';
import {
  answerWith,
  startHostileServer,
  type HostileServer,
  rawServerClient,
} from '../service/testing/hostile-server.js';
import type { Store } from '../store/store.js';
import { LOCAL, manualClock, removeDir } from '../store/testing/store-fixtures.js';
import { toOrderSummary } from '../views.js';
import { LISTED_DIFFERENTLY_ACTION } from './listed-differently.js';
import { FOUND_AT_SERVICE_ACTION, LOST_AT_SERVICE_ACTION } from './lost-at-service.js';
import { refreshOrder } from './refresh-order.js';
import { StatusPoller } from './status-poller.js';
import { storeWithCreatedOrder } from './testing/tracking-fixtures.js';

/**
 * A service whose lookup lists a created order under other ids (its clinic order id in another case, or another
 * pharmacy id than the create returned), through the real poller and the detail view's refresh, a real store file and
 * a raw loopback service: the record is not taken, but neither is it a miss. The order is never flagged "not found
 * at the service" for it; it is noted once, with what was listed, until a lookup lists it as it is.
 */

const MINUTE = 60_000;
const PHARMACY_ID = 9001;
const CLINIC_ORDER_ID = 'RX-CASE-1';

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
  const made = storeWithCreatedOrder({
    now: clock.now,
    order: { clinicOrderId: CLINIC_ORDER_ID },
    pharmacyOrderId: PHARMACY_ID,
  });
  ({ store, dataDir } = made);
  const service = { records: [] as object[] };
  server = await startHostileServer((socket, request) => {
    const body = request.target.startsWith('/api/v2/Order/status-date-range') ? [] : service.records;
    answerWith(200, JSON.stringify(body), { 'content-type': 'application/json' })(socket, request);
  });
  const client = rawServerClient(server.url);
  const noted: number[] = [];
  poller = new StatusPoller(
    {
      store: made.store,
      clientFor: () => client,
      now: clock.now,
      onServiceNote: (_env, orderId) => noted.push(orderId),
    },
    { minIntervalMs: 30, ratePerSecond: 100 },
  );
  return { clock, id: made.id, service, client, noted };
}

const entries = (s: Store, id: number, action: string) => s.audit.forOrder(id).filter((e) => e.action === action);
const record = (clinicOrderId: string | null, pharmacyOrderId: string | null, orderStatus: string) => ({
  clinicOrderId,
  pharmacyOrderId,
  orderStatus,
});

describe('an order the service lists under other ids', () => {
  it('its clinic order id in another case, for over an hour of polling: noted once, never flagged, nothing taken', async () => {
    const w = await world();
    const first = w.clock.now().toISOString();
    // Another order's Cancelled, were it taken: the order must not read cancelled by the pharmacy.
    w.service.records = [record('rx-case-1', String(PHARMACY_ID), 'Cancelled')];
    const rounds = [];
    for (let lookup = 0; lookup < 5; lookup += 1) {
      rounds.push(await poller!.refresh(LOCAL.id));
      w.clock.advance(20 * MINUTE);
    }
    // The first lookup is news for the screens; the same listing again is not.
    expect(rounds.map((round) => round.changed)).toEqual([[w.id], [], [], [], []]);
    expect(rounds.map((round) => round.checked)).toEqual([1, 1, 1, 1, 1]);

    const order = store!.orders.get(w.id)!;
    expect(order).toMatchObject({
      state: 'created',
      remoteStatus: null,
      pharmacyOrderId: PHARMACY_ID,
      notFound: null,
      listedDifferently: { clinicOrderId: 'rx-case-1', pharmacyOrderId: String(PHARMACY_ID), at: first },
    });
    expect(store!.statusHistory.list(w.id)).toEqual([]);
    expect(entries(store!, w.id, LOST_AT_SERVICE_ACTION)).toEqual([]);
    // Told once (a notification), not at every lookup that lists it so.
    expect(w.noted).toEqual([w.id]);

    const reason =
      `the service lists order ${CLINIC_ORDER_ID} (pharmacy id ${PHARMACY_ID}) as clinic order id "rx-case-1", ` +
      `pharmacy id ${PHARMACY_ID}: its clinic order id differs only in case or spaces, so the record is not taken ` +
      "as this order (it may be another) and the order's status is not updated from it";
    const [noted, ...more] = entries(store!, w.id, LISTED_DIFFERENTLY_ACTION);
    expect(more).toEqual([]);
    expect(noted).toMatchObject({
      actor: 'system',
      at: first,
      environmentId: LOCAL.id,
      clinicOrderId: CLINIC_ORDER_ID,
      details: {
        operation: 'status',
        outcome: 'listed-differently',
        errorField: 'clinicOrderId',
        remoteId: String(PHARMACY_ID),
        errorMessage: reason,
      },
    });
    // Ids only: none of the order's patient values.
    for (const value of ['Alex', 'Example', '1980-01-15', 'LS1 4AP'])
      expect(JSON.stringify(noted)).not.toContain(value);
    expect(toOrderSummary(order)).toMatchObject({
      listedDifferently: { clinicOrderId: 'rx-case-1', pharmacyOrderId: String(PHARMACY_ID), at: first },
    });
    expect(toOrderSummary(order).notFoundAtService).toBeUndefined();

    // Listed as it is: the note clears with one entry, and the status is taken as ever.
    w.service.records = [record(CLINIC_ORDER_ID, String(PHARMACY_ID), 'Waiting Clinical Check')];
    expect((await poller!.refresh(LOCAL.id)).changed).toEqual([w.id]);
    expect(store!.orders.get(w.id)).toMatchObject({
      remoteStatus: 'Waiting Clinical Check',
      listedDifferently: null,
      notFound: null,
    });
    expect(entries(store!, w.id, FOUND_AT_SERVICE_ACTION)).toHaveLength(1);
    expect(toOrderSummary(store!.orders.get(w.id)!).listedDifferently).toBeUndefined();
    expect(verifyAuditChain(store!)).toMatchObject({ ok: true });
  });

  it("another pharmacy id, through the detail view's refresh: the run of misses ends, and the flag replaces the note", async () => {
    const w = await world();
    const refresh = () => refreshOrder(store!, w.client, w.id, w.clock.now, (_env, id) => w.noted.push(id));
    // Two misses first: a run under way.
    await refresh();
    w.clock.advance(30 * MINUTE);
    await refresh();
    expect(store!.orders.get(w.id)!.notFound).toMatchObject({ lookups: 2 });

    w.service.records = [record(CLINIC_ORDER_ID, '9002', 'Prescription Dispatched')];
    w.clock.advance(31 * MINUTE);
    const listedAt = w.clock.now().toISOString();
    expect(await refresh()).toEqual({ checked: 1, changed: [w.id], stoppedBy: null });
    for (const afterMs of [30 * MINUTE, 60 * MINUTE]) {
      w.clock.advance(afterMs);
      expect((await refresh()).changed).toEqual([]);
    }
    expect(store!.orders.get(w.id)).toMatchObject({
      state: 'created',
      remoteStatus: null,
      pharmacyOrderId: PHARMACY_ID,
      notFound: null,
      listedDifferently: { clinicOrderId: CLINIC_ORDER_ID, pharmacyOrderId: '9002', at: listedAt },
    });
    const listed = entries(store!, w.id, LISTED_DIFFERENTLY_ACTION);
    expect(listed).toHaveLength(1);
    expect(listed[0]!.details).toMatchObject({
      errorField: 'pharmacyOrderId',
      remoteId: String(PHARMACY_ID),
      errorMessage: expect.stringContaining(
        `order ${CLINIC_ORDER_ID} (pharmacy id ${PHARMACY_ID}) as clinic order id "${CLINIC_ORDER_ID}", pharmacy id 9002: its pharmacy id is not the one the create returned`,
      ) as unknown,
    });

    // The record gone (an empty list): misses count again from one, and once the rule is met the flag replaces
    // the note (one or the other is shown, never both).
    w.service.records = [];
    for (const afterMs of [MINUTE, 30 * MINUTE, 31 * MINUTE]) {
      w.clock.advance(afterMs);
      await poller!.refresh(LOCAL.id);
    }
    expect(store!.orders.get(w.id)).toMatchObject({
      notFound: { lookups: 3, flaggedAt: expect.any(String) as unknown },
      listedDifferently: null,
    });
    // Told of the note (the detail view's lookup), then of the flag (the poller's).
    expect(w.noted).toEqual([w.id, w.id]);

    // Listed differently again: the flag gives way to the note, told again.
    w.service.records = [record(CLINIC_ORDER_ID, '9002', 'Prescription Dispatched')];
    await refresh();
    expect(store!.orders.get(w.id)).toMatchObject({ notFound: null, listedDifferently: { pharmacyOrderId: '9002' } });
    expect(entries(store!, w.id, LISTED_DIFFERENTLY_ACTION)).toHaveLength(2);
    expect(w.noted).toEqual([w.id, w.id, w.id]);
    expect(verifyAuditChain(store!)).toMatchObject({ ok: true });
  });

  it('is a miss when the record differs in both ids, names no clinic order id, or is another clinic’s', async () => {
    const w = await world();
    w.service.records = [
      record('rx-case-1', '9002', 'Cancelled'),
      record(null, '9003', 'Cancelled'),
      { ...record(CLINIC_ORDER_ID, '9004', 'Cancelled'), clinicCode: 'CLINIC-ELSEWHERE' },
    ];
    await poller!.refresh(LOCAL.id);
    await refreshOrder(store!, w.client, w.id, w.clock.now);
    expect(store!.orders.get(w.id)).toMatchObject({ notFound: { lookups: 2 }, listedDifferently: null });
    expect(entries(store!, w.id, LISTED_DIFFERENTLY_ACTION)).toEqual([]);
  });
});
