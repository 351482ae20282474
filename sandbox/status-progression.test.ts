import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { toWireJson } from '../shared/wire-json.js';
import { requestClientCredentialsToken } from '../test/support/client-credentials.js';
import { sampleCreateWithClinic } from '../test/support/orders.js';
import { startSandbox, type RunningSandbox } from './index.js';
import { OrderStore } from './order-store.js';
import {
  advanceDueOrders,
  initialStatus,
  PROGRESSION_STEP_LIMIT,
  startStatusProgression,
  STATUS,
} from './status-progression.js';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'rxbatch-sandbox-test-'));
  dirs.push(dir);
  return dir;
};

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('status steps (store level, no timer)', () => {
  let store: OrderStore;
  afterEach(() => store?.close());

  const add = (clinicOrderId: string, invoice: boolean) =>
    store.insertOrder(
      {
        clinicCode: 'C1',
        clinicOrderId,
        route: 'create-v2',
        rawBody: '{}',
        status: initialStatus(invoice),
        courierCode: 'RMT24',
      },
      { name: 'Clinic One' },
    );

  it('walks payment → clinical check → pharmacy → dispatched (date + tracking id) → processed, then stops', () => {
    store = new OrderStore(tempDir());
    const id = add('P-1', false);
    const seen = [store.getOrder(id)!.status];
    const now = Date.now() + 1000;
    for (let step = 0; step < 5; step += 1) {
      advanceDueOrders(store, 0, now + step);
      seen.push(store.getOrder(id)!.status);
    }
    expect(seen).toEqual([
      STATUS.waitingPayment,
      STATUS.waitingClinicalCheck,
      STATUS.atPharmacy,
      STATUS.dispatched,
      STATUS.processed,
      STATUS.processed,
    ]);
    const order = store.getOrder(id)!;
    expect(order.trackingId).toMatch(/^RM\d{9}GB$/);
    expect(order.dispatchDate).toBe(new Date(now).toISOString().slice(0, 10));
  });

  it('starts invoice orders at clinical check, and leaves cancelled ones alone', () => {
    store = new OrderStore(tempDir());
    const invoice = add('P-2', true);
    expect(store.getOrder(invoice)!.status).toBe(STATUS.waitingClinicalCheck);
    const cancelled = add('P-3', false);
    store.setStatus(cancelled, STATUS.cancelled, { cancelReason: 'test' });
    advanceDueOrders(store, 0, Date.now() + 1000);
    expect(store.getOrder(cancelled)).toMatchObject({
      status: STATUS.cancelled,
      cancelReason: 'test',
      trackingId: null,
    });
  });

  it('moves nothing that is younger than one step', () => {
    store = new OrderStore(tempDir());
    const id = add('P-4', false);
    expect(advanceDueOrders(store, 60_000)).toBe(0);
    expect(store.getOrder(id)!.status).toBe(STATUS.waitingPayment);
  });

  it('moves at most its limit in one step, lowest ids first', () => {
    store = new OrderStore(tempDir());
    const ids = Array.from({ length: 5 }, (_, i) => add(`P-L${i}`, false));
    expect(advanceDueOrders(store, 0, Date.now() + 1000, 3)).toBe(3);
    expect(ids.map((id) => store.getOrder(id)!.status)).toEqual([
      ...Array<string>(3).fill(STATUS.waitingClinicalCheck),
      ...Array<string>(2).fill(STATUS.waitingPayment),
    ]);
  });

  it('reads the due orders through their index, not every order it holds', () => {
    store = new OrderStore(tempDir());
    const plan = store.dueOrdersPlan([STATUS.waitingPayment, STATUS.dispatched]).join('\n');
    expect(plan).toMatch(/USING (COVERING )?INDEX orders_by_status/);
    expect(plan).not.toMatch(/^SCAN orders/m);
  });

  it('a tick with more due orders than one step moves them all, in several steps', async () => {
    store = new OrderStore(tempDir());
    const count = PROGRESSION_STEP_LIMIT * 2 + 50;
    const ids = Array.from({ length: count }, (_, i) => add(`P-T${i}`, false));
    const errors: unknown[] = [];
    // Step 20 ms: all are due after the first tick's wait; each moves once per tick.
    const stop = startStatusProgression(store, 20, (error) => errors.push(error));
    try {
      await expect
        .poll(() => ids.every((id) => store.getOrder(id)!.status !== STATUS.waitingPayment), { timeout: 5_000 })
        .toBe(true);
    } finally {
      stop();
    }
    expect(errors).toEqual([]);
  });
});

describe('status progression in a running sandbox', () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ statusStepMs: 50, dataDir: tempDir() });
  });
  afterAll(async () => {
    await sandbox?.close();
  });

  it('reaches Prescription Dispatched with a tracking id on its own, visible over HTTP', async () => {
    const token = await requestClientCredentialsToken({ issuer: sandbox.issuer, ...sandbox.serviceClient });
    const created = await fetch(new URL('api/v2/Order/create-with-clinic', sandbox.apiUrl), {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: toWireJson(sampleCreateWithClinic({ clinicOrderId: 'PROGRESS-1' })),
    });
    expect(created.status).toBe(200);
    const { orderId } = (await created.json()) as { orderId: number };

    const statusOf = async () => {
      const response = await fetch(new URL(`api/v2/Order/status?orderId=${orderId}`, sandbox.apiUrl), {
        headers: { authorization: `Bearer ${token}` },
      });
      return (await response.json()) as { orderStatus: string; trackingId: string | null; dispatchDate: string | null };
    };
    await expect.poll(async () => (await statusOf()).trackingId, { timeout: 10_000, interval: 20 }).toBeTruthy();
    const record = await statusOf();
    expect([STATUS.dispatched, STATUS.processed]).toContain(record.orderStatus);
    expect(record.trackingId).toMatch(/^RM\d{9}GB$/);
    expect(record.dispatchDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(sandbox.listOrders().find((o) => o.pharmacyOrderId === orderId)?.trackingId).toBe(record.trackingId);
  });
});

describe('the SQLite file', () => {
  it('keeps orders across a restart with the same data dir (created if missing), ids counting up', async () => {
    const dataDir = join(tempDir(), 'app-data', 'local-sandbox');
    const first = await startSandbox({ dataDir, statusStepMs: 3_600_000 });
    let firstId: number;
    try {
      const token = await requestClientCredentialsToken({ issuer: first.issuer, ...first.serviceClient });
      const response = await fetch(new URL('api/v1/Order/create-with-clinic', first.apiUrl), {
        method: 'PUT',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: toWireJson(sampleCreateWithClinic({ clinicOrderId: 'KEEP-1', clinicCode: 'CLINIC-KEEP' })),
      });
      firstId = ((await response.json()) as { orderId: number }).orderId;
    } finally {
      await first.close();
    }

    const second = await startSandbox({ dataDir, statusStepMs: 3_600_000 });
    try {
      expect(second.listOrders().map((o) => [o.pharmacyOrderId, o.clinicOrderId])).toEqual([[firstId, 'KEEP-1']]);
      const token = await requestClientCredentialsToken({ issuer: second.issuer, ...second.serviceClient });
      const again = await fetch(new URL('api/v1/Order/create-with-clinic', second.apiUrl), {
        method: 'PUT',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: toWireJson(sampleCreateWithClinic({ clinicOrderId: 'KEEP-2', clinicCode: 'CLINIC-KEEP' })),
      });
      expect(((await again.json()) as { orderId: number }).orderId).toBeGreaterThan(firstId);
    } finally {
      await second.close();
    }
  });
});
