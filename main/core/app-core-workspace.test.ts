import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RxBatchApi } from '../../shared/contract.js';
import { ContractError } from '../../shared/errors.js';
import { PRODUCTS } from '../../sandbox/catalogue.js';
import { DEVICE_CLIENT_ID } from '../../sandbox/identity/provider-config.js';
import type { Core } from './app-core.js';
import { openTestCore, type TestCore } from './testing/test-core.js';
import { LOCAL_SANDBOX_ID } from './environments/presets.js';
import { enqueueOrders } from './store/store.js';
import { sampleOrder } from './store/testing/store-fixtures.js';

// The calls the workspace screens add (settings, lookups, refresh, filters, log search), through the contract
// over the direct transport, against the core's own local sandbox moving statuses every 40 ms.
describe('the core: calls behind the workspace screens', () => {
  let testCore: TestCore;
  let core: Core;
  let api: RxBatchApi;

  function queueOrders(count: number): number[] {
    const { store, outbox } = core.services;
    const batch = store.batches.create({
      environmentId: LOCAL_SANDBOX_ID,
      sourceFileName: 'orders.json',
      kind: 'json',
      rowCount: count,
      invalidCount: 0,
    });
    const ids = enqueueOrders(
      store,
      batch.id,
      Array.from({ length: count }, () => sampleOrder({ state: 'queued', clinicCode: 'CLINIC-W' })),
    );
    outbox.notify(LOCAL_SANDBOX_ID);
    return ids;
  }

  beforeAll(async () => {
    testCore = await openTestCore('core-workspace', {
      startLocalSandbox: true,
      startOutbox: true,
      localSandboxStatusStepMs: 40,
      outboxTuning: { baseDelayMs: 20, maxDelayMs: 200, breakerCooldownMs: 50, reconcileDelayMs: 20 },
    });
    ({ core, api } = testCore);
  });

  afterAll(async () => {
    await testCore.close();
  });

  it('tells the settings screen where the data lives', async () => {
    expect(await api.call('app.info', {})).toMatchObject({ dataDir: testCore.dataDir, transport: 'direct' });
  });

  it('adds a device sign-in environment, refuses a second with the same id, and keeps the sandbox its own', async () => {
    const [local] = await api.call('environments.list', {});
    if (!local) throw new Error('no environments');
    const changed = vi.fn();
    const off = api.on('environments.changed', changed);
    const device = {
      ...local,
      id: 'sandbox-device',
      name: 'Sandbox (device sign-in)',
      kind: 'remote' as const,
      clientId: DEVICE_CLIENT_ID,
      grant: 'device' as const,
      concurrency: 3,
      ratePerSecond: 7,
      pollIntervalMs: 15_000,
    };
    const { running: _running, ...profile } = device;
    const saved = await api.call('environments.save', { environment: profile, create: true });
    expect(saved).toMatchObject({ id: 'sandbox-device', grant: 'device', concurrency: 3, pollIntervalMs: 15_000 });
    expect(changed).toHaveBeenCalled();
    off();
    expect((await api.call('signin.status', { environmentId: 'sandbox-device' })).signedIn).toBe(false);
    await expect(api.call('environments.save', { environment: profile, create: true })).rejects.toThrow(
      /already an environment/,
    );

    // The sandbox's URLs and client are the app's own; its pace and name are the admin's.
    const { running: _r, ...localProfile } = local;
    const edited = await api.call('environments.save', {
      environment: { ...localProfile, apiBaseUrl: 'https://elsewhere.example/', name: 'Sandbox here', concurrency: 4 },
      create: false,
    });
    expect(edited).toMatchObject({ name: 'Sandbox here', apiBaseUrl: local.apiBaseUrl, concurrency: 4 });
    expect((await api.call('signin.status', { environmentId: LOCAL_SANDBOX_ID })).signedIn).toBe(true);
  });

  it('checks stock and prices a number of packs for a product the sandbox lists', async () => {
    const inStock = PRODUCTS.find((product) => product.stock > 0)!;
    const outOfStock = PRODUCTS.find((product) => product.stock === 0)!;
    expect(await api.call('products.stock', { environmentId: LOCAL_SANDBOX_ID, dmdCode: inStock.dmdCode })).toEqual({
      ok: true,
      value: { inStock: true },
    });
    expect(
      await api.call('products.stock', { environmentId: LOCAL_SANDBOX_ID, productId: outOfStock.productId }),
    ).toEqual({ ok: true, value: { inStock: false } });
    const price = await api.call('products.price', {
      environmentId: LOCAL_SANDBOX_ID,
      dmdCode: inStock.dmdCode,
      totalPacks: 3,
    });
    expect(price).toMatchObject({
      ok: true,
      value: { totalPacks: 3, totalPrice: Math.round(inStock.unitPrice * 300) / 100, currencyCode: 'GBP' },
    });
    await expect(api.call('products.price', { environmentId: LOCAL_SANDBOX_ID, totalPacks: 1 })).rejects.toBeInstanceOf(
      ContractError,
    );
  });

  it('refreshes statuses on request, filters by remote status and date, and finds orders on the service', async () => {
    const ids = queueOrders(2);
    await vi.waitFor(
      async () => {
        for (const id of ids) expect((await api.call('orders.get', { orderId: id })).order.state).toBe('created');
      },
      { timeout: 15_000, interval: 50 },
    );
    // Several status steps pass at the sandbox; a refresh of the one order brings them in, with the tracking id.
    const changed = vi.fn();
    const off = api.on('orders.changed', changed);
    await vi.waitFor(
      async () => {
        const round = await api.call('orders.refresh', { environmentId: LOCAL_SANDBOX_ID, orderId: ids[0]! });
        expect(round).toMatchObject({ checked: 1, stoppedBy: null });
        const { order } = await api.call('orders.get', { orderId: ids[0]! });
        expect(order.trackingId).not.toBeNull();
      },
      { timeout: 15_000, interval: 200 },
    );
    off();
    expect(changed).toHaveBeenCalledWith({ environmentId: LOCAL_SANDBOX_ID, orderIds: [ids[0]] });
    // The environment-wide round looks at every open order (the other one too).
    expect(await api.call('orders.refresh', { environmentId: LOCAL_SANDBOX_ID })).toMatchObject({ stoppedBy: null });
    await expect(api.call('orders.refresh', { environmentId: 'cloudrx-sandbox', orderId: ids[0]! })).rejects.toThrow(
      /no order/,
    );
    const first = (await api.call('orders.get', { orderId: ids[0]! })).order;
    const status = first.remoteStatus!;
    const byStatus = await api.call('orders.list', { environmentId: LOCAL_SANDBOX_ID, remoteStatus: status });
    expect(byStatus.orders.map((order) => order.id)).toContain(first.id);
    expect((await api.call('orders.list', { remoteStatus: 'No such status' })).orders.map((order) => order.id)).toEqual(
      [],
    );
    const today = first.createdAt.slice(0, 10);
    const byDate = await api.call('orders.list', { createdFrom: today, createdTo: today, clinicCode: 'CLINIC-W' });
    expect(byDate.orders.map((order) => order.id)).toEqual([...ids].reverse()); // newest first
    expect((await api.call('orders.list', { createdTo: '2000-01-01' })).orders).toEqual([]);
    // The page's own days as instants: at or after the first, before the second (written with or without ms).
    const at = (ms: number) => new Date(Date.parse(first.createdAt) + ms).toISOString();
    const between = async (createdAtFrom: string, createdAtBefore: string) =>
      (await api.call('orders.list', { createdAtFrom, createdAtBefore, clinicCode: 'CLINIC-W' })).orders.map(
        (o) => o.id,
      );
    expect(await between(first.createdAt, at(1))).toContain(first.id);
    expect(await between(at(-60_000), first.createdAt)).not.toContain(first.id);
    const wholeSecond = first.createdAt.replace(/\.\d+Z$/, 'Z');
    expect(await between(wholeSecond, at(60_000))).toContain(first.id);

    const byPharmacyId = await api.call('orders.lookup', {
      environmentId: LOCAL_SANDBOX_ID,
      query: { by: 'pharmacyOrderId', pharmacyOrderId: first.pharmacyOrderId! },
    });
    expect(byPharmacyId).toMatchObject({
      error: null,
      records: [{ clinicOrderId: first.clinicOrderId, localOrderId: first.id, trackingId: first.trackingId }],
    });
    // Sent from here, so the order names its courier, for a tracking link, on the list and in the lookup alike.
    expect(first.courierCode).toMatch(/^(RMT24|RMT48|DPD)$/);
    expect(byPharmacyId.records[0]!.courierCode).toBe(first.courierCode);
    const byClinicOrderId = await api.call('orders.lookup', {
      environmentId: LOCAL_SANDBOX_ID,
      query: { by: 'clinicOrderId', clinicOrderId: first.clinicOrderId, clinicCode: 'CLINIC-W' },
    });
    expect(byClinicOrderId.records.map((record) => record.pharmacyOrderId)).toEqual([String(first.pharmacyOrderId)]);
    const unknown = await api.call('orders.lookup', {
      environmentId: LOCAL_SANDBOX_ID,
      query: { by: 'pharmacyOrderId', pharmacyOrderId: 987_654_321 },
    });
    expect(unknown).toEqual({ windows: [], records: [], truncated: false, error: null });

    // Ten days: three calls, each spanning at most three days, together covering the range.
    const start = new Date(Date.parse(`${today}T00:00:00Z`) - 9 * 86_400_000).toISOString().slice(0, 10);
    const byDispatch = await api.call('orders.lookup', {
      environmentId: LOCAL_SANDBOX_ID,
      query: { by: 'dispatchDate', startDate: start, endDate: today },
    });
    expect(byDispatch.windows).toHaveLength(3);
    expect(byDispatch.windows[0]!.startDate).toBe(start);
    expect(byDispatch.windows.at(-1)!.endDate).toBe(today);
    expect(byDispatch.records.map((record) => record.localOrderId)).toEqual(expect.arrayContaining(ids));
    await expect(
      api.call('orders.lookup', {
        environmentId: LOCAL_SANDBOX_ID,
        query: { by: 'dispatchDate', startDate: '2025-01-01', endDate: '2025-03-01' },
      }),
    ).rejects.toThrow(/at most 31 days/);
  });

  it('searches the log by clinic order id and action', async () => {
    const [id] = queueOrders(1);
    // Sending it writes its attempt and its creation to the log.
    await vi.waitFor(async () => expect((await api.call('orders.get', { orderId: id! })).order.state).toBe('created'), {
      timeout: 15_000,
      interval: 50,
    });
    const { order } = await api.call('orders.get', { orderId: id! });
    const found = await api.call('log.list', { search: order.clinicOrderId.toLowerCase() });
    expect(found.entries.length).toBeGreaterThan(0);
    expect(found.entries.every((entry) => entry.clinicOrderId === order.clinicOrderId)).toBe(true);
    const added = await api.call('log.list', { action: 'environment.added' });
    expect(added.entries.map((entry) => entry.environmentId)).toEqual(['sandbox-device']);
    // Free text matches what an entry says, not its action's name (the action filter is for that).
    expect((await api.call('log.list', { search: 'environment.added' })).entries).toEqual([]);
  });
});
