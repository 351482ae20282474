import { afterEach, describe, expect, it } from 'vitest';
import { STATUS_TEXT_MAX, statusRecordSchema } from '../../../shared/status.js';
import {
  answerWith,
  startHostileServer,
  type HostileServer,
  rawServerClient,
} from '../service/testing/hostile-server.js';
import { enqueueOrders, type Store } from '../store/store.js';
import { LOCAL, removeDir, sampleOrder } from '../store/testing/store-fixtures.js';
import { storeWithCreatedOrder } from './testing/tracking-fixtures.js';
import { LOCAL_SANDBOX_ID } from '../environments/presets.js';
import { openTestCore } from '../testing/test-core.js';
import { applyStatusRecord } from './apply-status.js';
import { StatusPoller } from './status-poller.js';

/**
 * docs/security.md, finding 68: a status record's texts were kept as the service sent them, up to the 10 MB the
 * client reads. A hostile or faulty service answering each poll with a new megabyte of status, dispatch date and
 * tracking id had each written into a status history row, kept for good: 20 answers for one order made 88 MB of
 * store. And a status one character longer than the order views allow made every `orders.list` page holding the
 * order an answer outside the contract. A loopback service answering the real client and poller, a real core, real
 * SQLite.
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

const MB = 1 << 20;

describe('a status record with texts of any length', () => {
  it('a new megabyte of each text every poll: each kept cut, the store grows by little', async () => {
    const world = storeWithCreatedOrder({ pharmacyOrderId: 9101 });
    ({ store, dataDir } = world);
    const { store: s, id, order } = world;
    let answers = 0;
    server = await startHostileServer((socket, request) => {
      answers += 1;
      const record = {
        clinicOrderId: order.clinicOrderId,
        pharmacyOrderId: '9101',
        orderStatus: `Prescription at Pharmacy ${answers} ${'s'.repeat(MB)}`,
        dispatchDate: `${answers}${'d'.repeat(MB)}`,
        trackingId: `${answers}${'T'.repeat(MB)}`,
      };
      answerWith(200, JSON.stringify([record]), { 'content-type': 'application/json' })(socket, request);
    });
    const client = rawServerClient(server.url);
    poller = new StatusPoller(
      { store: s, clientFor: () => client },
      { minIntervalMs: 30, ratePerSecond: 100, dispatchRefreshMs: 0 },
    );
    const pages = () => s.db.pragma('page_count', { simple: true }) as number;
    const before = pages() * (s.db.pragma('page_size', { simple: true }) as number);
    for (let i = 0; i < 10; i += 1) await poller.refresh(LOCAL.id);
    const grown = pages() * (s.db.pragma('page_size', { simple: true }) as number) - before;

    expect(answers).toBeGreaterThanOrEqual(10);
    const history = s.statusHistory.list(id);
    expect(history.length).toBeGreaterThanOrEqual(10);
    for (const row of history) {
      expect(row.status.length).toBeLessThanOrEqual(STATUS_TEXT_MAX.orderStatus);
      expect(row.dispatchDate!.length).toBeLessThanOrEqual(STATUS_TEXT_MAX.dispatchDate);
      expect(row.trackingId!.length).toBeLessThanOrEqual(STATUS_TEXT_MAX.trackingId);
    }
    const latest = `Prescription at Pharmacy ${answers} ${'s'.repeat(MB)}`;
    expect(s.orders.get(id)!.remoteStatus).toBe(latest.slice(0, STATUS_TEXT_MAX.orderStatus));
    // Before: 88 MB.
    expect(grown).toBeLessThan(1 * MB);
  }, 60_000);

  it("a status and date just past the views' bounds: the order is still listed through the contract", async () => {
    const t = await openTestCore('status-text-size');
    try {
      const { store } = t.core.services;
      const batch = store.batches.create({
        environmentId: LOCAL_SANDBOX_ID,
        sourceFileName: 'orders.json',
        kind: 'json',
        rowCount: 2,
        invalidCount: 0,
      });
      const orders = [sampleOrder(), sampleOrder()];
      const ids = enqueueOrders(store, batch.id, orders);
      ids.forEach((id, i) =>
        store.orders.transition(
          id,
          ['queued'],
          'created',
          { pharmacyOrderId: 8001 + i },
          { actor: 'submitter', action: 'x.y' },
        ),
      );
      const record = statusRecordSchema.parse({
        clinicOrderId: orders[0]!.clinicOrderId,
        pharmacyOrderId: '8001',
        orderStatus: `Waiting Clinical Check: ${'a note from the pharmacist '.repeat(8)}`,
        dispatchDate: `2026-12-07 (${'x'.repeat(40)})`,
      });
      expect(applyStatusRecord(store, ids[0]!, record, new Date())?.changed).toBe(true);
      // Before: "orders.list produced an answer outside the contract", for every page holding the order.
      const page = await t.api.call('orders.list', { environmentId: LOCAL_SANDBOX_ID });
      expect(page.orders.map((order) => order.id).sort()).toEqual([...ids].sort());
      expect(page.orders.find((order) => order.id === ids[0])!.remoteStatus).toHaveLength(200);
      // A row an earlier version kept whole is cut in the view.
      store.db
        .prepare('UPDATE orders SET remote_status = ?, tracking_id = ? WHERE id = ?')
        .run('s'.repeat(5000), 'T'.repeat(5000), ids[1]);
      const again = await t.api.call('orders.list', { environmentId: LOCAL_SANDBOX_ID });
      expect(again.orders.find((order) => order.id === ids[1])).toMatchObject({
        remoteStatus: 's'.repeat(200),
        trackingId: 'T'.repeat(100),
      });
    } finally {
      await t.close();
    }
  });

  it('usual texts are kept whole, and a cut never ends in half a character', () => {
    const usual = statusRecordSchema.parse({
      orderStatus: 'prescription  dispatched',
      dispatchDate: '2026-12-07T10:15:00.000+00:00',
      trackingId: 'JD014600003828301234',
      cancelReason: 'Patient asked',
    });
    expect(usual).toMatchObject({
      orderStatus: 'Prescription Dispatched',
      dispatchDate: '2026-12-07T10:15:00.000+00:00',
      trackingId: 'JD014600003828301234',
      cancelReason: 'Patient asked',
    });
    const emoji = statusRecordSchema.parse({ cancelReason: `${'x'.repeat(499)}😀😀` });
    expect(emoji.cancelReason).toBe('x'.repeat(499));
    expect(statusRecordSchema.parse({ trackingId: 12345 }).trackingId).toBe('12345');
  });
});
