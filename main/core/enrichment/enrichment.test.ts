import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RxBatchApi } from '../../../shared/contract.js';
import type { EnrichmentProgress, OrderEnrichment } from '../../../shared/enrichment-views.js';
import { DEFAULT_CODE_LISTS } from '../../../shared/environment.js';
import type { CreateWithClinicV1Input } from '../../../shared/orders.js';
import { PRODUCTS } from '../../../sandbox/catalogue.js';
import { startSandbox, type RunningSandbox } from '../../../sandbox/index.js';
import type { Core } from '../app-core.js';
import { openCore } from '../testing/test-core.js';
import { LOCAL_SANDBOX_ID } from '../environments/presets.js';
import { templateCsv, uniqueOrder } from '../staging/testing/staging-fixtures.js';
import { enrichmentDeps } from './enrichment-handlers.js';
import { EnrichmentService } from './enrichment-service.js';

// A staged batch checked with a real sandbox over loopback, through the contract (direct transport): codes shared
// by many orders asked once, answers stored with their time, warnings kept apart from validation problems, and
// what happens offline, signed out, on service errors and on cancel. The answers are read back after a restart.

const PARACETAMOL = '322236009'; // in stock, pack size 32, £0.89 a pack
const IBUPROFEN = '39732311000001104'; // in stock, pack size 24, £1.15
const TADALAFIL = '177803111000001105'; // 18 digits, out of stock, pack size 4, £2.60
const UNKNOWN = '42109611000001109'; // a valid dm+d code the sandbox does not list
const BAD_CHECK_DIGIT = '42109611000001108';
/** On the environment's code lists (so it passes the offline checks) but not on the service's courier list. */
const UNLISTED_COURIER = 'PFW48';
const SIGNED_OUT_ID = 'enrich-signed-out';

const product = (code: string) => PRODUCTS.find((candidate) => candidate.dmdCode === code)!;

interface ItemSpec {
  dmdCode: string;
  pack?: number;
  quantity?: number;
  productId?: number;
}

function order(items: ItemSpec[], courierCode = 'RMT24'): CreateWithClinicV1Input {
  const body = uniqueOrder({}, 'ENR');
  body.prescription.courierCode = courierCode;
  body.prescribedItems = items.map((item) => ({
    dmdCode: item.dmdCode,
    medication: 'As prescribed',
    dosageInstructions: 'As directed',
    quantity: item.quantity ?? 1,
    ...(item.pack !== undefined ? { pack: item.pack } : {}),
    ...(item.productId !== undefined ? { productId: item.productId } : {}),
  }));
  return body;
}

describe('enrichment against the sandbox', () => {
  let sandbox: RunningSandbox;
  let core: Core;
  let api: RxBatchApi;
  let dir: string;
  let dataDir: string;
  let mainBatch: number;
  const progress: EnrichmentProgress[] = [];

  async function importBatch(orders: CreateWithClinicV1Input[], environmentId = LOCAL_SANDBOX_ID): Promise<number> {
    const outcome = await api.call('import.file', {
      environmentId,
      upload: { name: 'enrichment.csv', content: templateCsv(orders) },
    });
    if (outcome.status !== 'staged') throw new Error(`not staged: ${JSON.stringify(outcome)}`);
    return outcome.batchId;
  }

  async function orderViews(batchId: number): Promise<OrderEnrichment[]> {
    return (await api.call('batches.enrichment', { batchId, offset: 0, limit: 200 })).orders;
  }

  async function reopenCore(): Promise<void> {
    ({ core, api } = await openCore(dataDir));
    core.events.subscribe('enrichment.progress', (payload) => progress.push(payload));
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rxbatch-enrichment-'));
    dataDir = join(dir, 'data');
    sandbox = await startSandbox({ statusStepMs: 60_000 });
    await reopenCore();
    const { registry, signin } = core.services;
    const profile = {
      ...registry.get(LOCAL_SANDBOX_ID),
      apiBaseUrl: sandbox.apiUrl,
      issuer: sandbox.issuer,
      clientId: sandbox.serviceClient.clientId,
      grant: 'client_credentials' as const,
      // Fast enough for a test; the pacing itself is the environment's own setting.
      concurrency: 4,
      ratePerSecond: 100,
      codeLists: { ...DEFAULT_CODE_LISTS, courierCodes: [...DEFAULT_CODE_LISTS.courierCodes, UNLISTED_COURIER] },
    };
    await registry.update(profile);
    expect(await signin.clientCredentials(LOCAL_SANDBOX_ID, sandbox.serviceClient.clientSecret)).toEqual({ ok: true });
    // The same service, configured but never signed in.
    await registry.update({ ...profile, id: SIGNED_OUT_ID, name: 'Signed out', kind: 'remote' });
  });

  afterAll(async () => {
    await core.close();
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('asks each distinct code once, stores products, stock and prices, and flags what the admin should know', async () => {
    const orders = [
      // 12 orders share two codes: one in stock (2 packs), one out of stock (1 pack).
      ...Array.from({ length: 12 }, () =>
        order([
          { dmdCode: PARACETAMOL, pack: 2 },
          { dmdCode: TADALAFIL, pack: 1 },
        ]),
      ),
      // No pack count: priced as quantity ÷ pack size (48 ÷ 24 = 2 packs).
      ...Array.from({ length: 12 }, () => order([{ dmdCode: IBUPROFEN, quantity: 48 }])),
      ...Array.from({ length: 4 }, () => order([{ dmdCode: UNKNOWN, pack: 1 }])),
      order([{ dmdCode: PARACETAMOL, pack: 2, productId: 4242 }], UNLISTED_COURIER),
      order([{ dmdCode: PARACETAMOL, pack: 2 }], UNLISTED_COURIER),
      // Fails the offline checks: not asked about.
      order([{ dmdCode: BAD_CHECK_DIGIT, pack: 1 }]),
    ];
    mainBatch = await importBatch(orders);
    const before = await api.call('batches.get', { batchId: mainBatch, limit: 200 });
    expect(before.batch.counts).toMatchObject({ total: 31, valid: 30, invalid: 1 });

    const requests = sandbox.requestCount();
    progress.length = 0;
    const run = await api.call('batches.enrich', { batchId: mainBatch });
    // 4 searches + the courier list + stock for the 3 codes found + 3 distinct (code, packs) prices = 11.
    expect(sandbox.requestCount() - requests).toBe(11);
    expect(run).toMatchObject({
      batchId: mainBatch,
      environmentId: LOCAL_SANDBOX_ID,
      outcome: 'complete',
      notChecked: null,
      calls: 11,
      reused: 0,
      counts: {
        orders: 31,
        items: 43,
        codes: 4,
        codesFound: 3,
        codesUnknown: 1,
        codesOutOfStock: 1,
        itemsOutOfStock: 12,
        itemsPriced: 38,
        itemsNotChecked: 0,
        courierCodes: 2,
        courierCodesNotListed: 1,
        ordersCourierNotChecked: 0,
        // 12 out of stock, 4 unknown codes, 2 unlisted couriers, 1 product id that does not match.
        ordersWithWarnings: 18,
        warnings: 19,
      },
    });
    expect(run.message).toContain('Checked 4 dm+d codes and 2 courier codes for 31 orders with 11 calls');
    expect(run.message).toContain('1 product out of stock (12 items)');
    expect(progress.at(-1)).toEqual({
      environmentId: LOCAL_SANDBOX_ID,
      batchId: mainBatch,
      state: 'finished',
      done: 5,
      total: 5,
      calls: 11,
    });

    const views = await orderViews(mainBatch);
    expect(views).toHaveLength(31);
    const [first] = views;
    expect(first!.items[0]).toMatchObject({
      dmdCode: PARACETAMOL,
      product: {
        state: 'found',
        products: [{ productId: product(PARACETAMOL).productId, name: 'Paracetamol 500mg tablets', packSize: 32 }],
      },
      stock: { state: 'in-stock' },
      price: {
        state: 'priced',
        totalPacks: 2,
        packsFrom: 'pack',
        unitPrice: 0.89,
        totalPrice: 1.78,
        currencyCode: 'GBP',
      },
    });
    // The 18-digit code travels exactly, and its product is out of stock: a warning on the item's code.
    expect(first!.items[1]).toMatchObject({ dmdCode: TADALAFIL, stock: { state: 'out-of-stock' } });
    expect(first!.warnings).toEqual([
      expect.objectContaining({
        source: 'service',
        stagedOrderId: first!.stagedOrderId,
        itemIndex: 1,
        field: 'prescribedItems.1.dmdCode',
        code: 'service.outOfStock',
      }),
    ]);
    expect(first!.total).toEqual({ totalPrice: 4.38, currencyCode: 'GBP' });
    expect(first!.courier).toMatchObject({
      state: 'listed',
      courierCode: 'RMT24',
      deliveryOption: 'Royal Mail Tracked 24',
    });
    const checkedAt = Date.parse((first!.items[0]!.product as { checkedAt: string }).checkedAt);
    expect(Date.now() - checkedAt).toBeLessThan(60_000);

    expect(views[12]!.items[0]!.price).toMatchObject({
      state: 'priced',
      totalPacks: 2,
      packsFrom: 'quantity',
      totalPrice: 2.3,
    });
    expect(views[24]!.warnings.map((w) => w.code)).toEqual(['service.unknownCode']);
    expect(views[24]!.items[0]!.stock).toMatchObject({ state: 'not-checked', reason: 'no-product' });
    expect(views[28]!.warnings.map((w) => [w.code, w.field])).toEqual([
      ['service.productMismatch', 'prescribedItems.0.productId'],
      ['service.unknownCourier', 'prescription.courierCode'],
    ]);
    expect(views[30]!.items[0]!.product).toMatchObject({ state: 'not-checked', reason: 'invalid-code' });

    // Warnings are not validation problems: the staged orders are exactly as before, and all valid ones accept.
    const after = await api.call('batches.get', { batchId: mainBatch, limit: 200 });
    expect(after.orders.map((o) => o.problems)).toEqual(before.orders.map((o) => o.problems));
    expect(after.orders.flatMap((o) => o.problems).some((p) => p.code.startsWith('service.'))).toBe(false);
    expect(after.batch.counts).toEqual(before.batch.counts);

    // Audited with counts only.
    const logged = core.services.store.audit.search({ action: 'batch.enriched', limit: 10 });
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ actor: 'user', batchId: mainBatch, environmentId: LOCAL_SANDBOX_ID });
    expect(logged[0]!.details).toEqual({
      outcome: 'complete',
      orderCount: 31,
      codeCount: 4,
      warningCount: 19,
      uncheckedCount: 0,
    });
  });

  it('reuses recent answers on a second check, and asks everything afresh when told to', async () => {
    const requests = sandbox.requestCount();
    const again = await api.call('batches.enrich', { batchId: mainBatch });
    expect(sandbox.requestCount()).toBe(requests);
    expect(again).toMatchObject({ calls: 0, reused: 11, outcome: 'complete' });
    expect(again.counts.warnings).toBe(19);

    // Two checks asked for at once are one check.
    const [one, two] = await Promise.all([
      api.call('batches.enrich', { batchId: mainBatch, reuseWithinSeconds: 0 }),
      api.call('batches.enrich', { batchId: mainBatch, reuseWithinSeconds: 0 }),
    ]);
    expect(two).toEqual(one);
    expect(sandbox.requestCount() - requests).toBe(11);
  });

  it('offline: says what was not checked, keeps older answers with their age, and stops asking at once', async () => {
    const batchId = await importBatch([
      order([{ dmdCode: PARACETAMOL, pack: 2 }]),
      ...['323509004', '41753111000001100', '42113511000001106', '39900111000001103', '36211111000001102'].map((code) =>
        order([{ dmdCode: code, pack: 1 }]),
      ),
    ]);
    const earlier = (await orderViews(batchId))[0]!.items[0]!.product;
    expect(earlier).toMatchObject({ state: 'found' });
    sandbox.setFaults({ outage: true });
    try {
      const requests = sandbox.requestCount();
      const run = await api.call('batches.enrich', { batchId, reuseWithinSeconds: 0 });
      expect(run).toMatchObject({ outcome: 'partial', notChecked: 'offline' });
      expect(run.message).toContain('the service could not be reached');
      // Each worker's question in flight, tried twice at most; nothing after the first offline answer.
      expect(run.calls).toBeLessThanOrEqual(8);
      expect(sandbox.requestCount() - requests).toBe(run.calls);
      const views = await orderViews(batchId);
      // Paracetamol was answered by the earlier check: shown with that answer's time, and the failed re-check.
      expect(views[0]!.items[0]!.product).toMatchObject({
        state: 'found',
        checkedAt: (earlier as { checkedAt: string }).checkedAt,
        recheckFailed: { reason: 'offline' },
      });
      for (const view of views.slice(1)) {
        expect(view.items[0]!.product).toMatchObject({ state: 'not-checked', reason: 'offline' });
        expect(view.items[0]!.stock).toMatchObject({ state: 'not-checked', reason: 'offline' });
      }
      expect(run.counts.itemsNotChecked).toBe(5);
      // Items and couriers that still show an earlier answer are counted and said plainly, not "some answers".
      const kept = views.reduce(
        (sum, view) =>
          sum +
          view.items.filter((item) =>
            [item.product, item.stock, item.price].some((s) => 'recheckFailed' in s && s.recheckFailed),
          ).length +
          ('recheckFailed' in view.courier && view.courier.recheckFailed ? 1 : 0),
        0,
      );
      expect(kept).toBeGreaterThanOrEqual(2);
      expect(run.counts.earlierAnswers).toBe(kept);
      expect(run.message).toContain(
        `Not checked: 5 items; ${kept} earlier answers could not be checked again (they are shown with their own time), because the service could not be reached.`,
      );
      expect(run.message).not.toContain('some answers');
    } finally {
      sandbox.setFaults({ outage: false });
    }
  });

  it("reuses answers younger than the contract's default window when enrich() is given none", async () => {
    const batchId = await importBatch([order([{ dmdCode: PARACETAMOL, pack: 2 }])]);
    const enrichment = new EnrichmentService(enrichmentDeps(core.services));
    await enrichment.enrich(batchId, { reuseWithinMs: 0 });
    const requests = sandbox.requestCount();
    const again = await enrichment.enrich(batchId);
    expect(sandbox.requestCount() - requests).toBe(0);
    expect(again).toMatchObject({ outcome: 'complete', calls: 0 });
    expect(again.reused).toBeGreaterThan(0);
  });

  it('signed out: product search still works; stock, prices and couriers say "signed out"', async () => {
    const batchId = await importBatch(
      [order([{ dmdCode: PARACETAMOL, pack: 2 }]), order([{ dmdCode: TADALAFIL, pack: 1 }])],
      SIGNED_OUT_ID,
    );
    const requests = sandbox.requestCount();
    const run = await api.call('batches.enrich', { batchId });
    // Two anonymous searches; no secured call is even sent.
    expect(sandbox.requestCount() - requests).toBe(2);
    expect(run).toMatchObject({ outcome: 'partial', notChecked: 'signed-out', calls: 2 });
    expect(run.counts).toMatchObject({ codesFound: 2, itemsNotChecked: 2, ordersCourierNotChecked: 2 });
    const [view] = await orderViews(batchId);
    expect(view!.items[0]).toMatchObject({
      product: { state: 'found', products: [{ name: 'Paracetamol 500mg tablets' }] },
      stock: { state: 'not-checked', reason: 'signed-out' },
      price: { state: 'not-checked', reason: 'signed-out' },
    });
    expect(view!.courier).toMatchObject({ state: 'not-checked', reason: 'signed-out' });
  });

  it('service errors: retried, then recorded per question, and a failing service is not asked on and on', async () => {
    const codes = ['323509004', '41753111000001100', '42113511000001106', '39900111000001103', '36211111000001102'];
    const batchId = await importBatch(
      [...codes, '104954111000001105', '388540111000001100'].map((code) => order([{ dmdCode: code, pack: 1 }])),
    );
    const enrichment = new EnrichmentService(enrichmentDeps(core.services), {
      concurrency: 1,
      retryBaseDelayMs: 5,
      maxRetries: 2,
    });
    sandbox.setFaults({ errorRate: 1 });
    try {
      const requests = sandbox.requestCount();
      const run = await enrichment.enrich(batchId, { reuseWithinMs: 0 });
      // Five questions, each tried three times, then the rest are recorded without asking.
      expect(sandbox.requestCount() - requests).toBe(15);
      expect(run).toMatchObject({ outcome: 'partial', notChecked: 'service-error', calls: 15 });
      const views = enrichment.read(batchId, { offset: 0, limit: 50 }).orders;
      for (const view of views) {
        expect(view.items[0]!.product).toMatchObject({ state: 'not-checked', reason: 'service-error' });
        // The courier list from the earlier checks is still shown, with its time and the failed re-check.
        expect(view.courier).toMatchObject({ state: 'listed', recheckFailed: { reason: 'service-error' } });
      }
    } finally {
      sandbox.setFaults({ errorRate: 0 });
    }
  });

  it('cancel: stops asking, keeps what came, and says so', async () => {
    const codes = ['323509004', '41753111000001100', '42113511000001106', '39900111000001103', '36211111000001102'];
    const batchId = await importBatch(codes.map((code) => order([{ dmdCode: code, pack: 3 }])));
    sandbox.setFaults({ latencyMs: 150 });
    try {
      const requests = sandbox.requestCount();
      const running = api.call('batches.enrich', { batchId, reuseWithinSeconds: 0 });
      await expect
        .poll(
          async () => (await api.call('batches.enrichment', { batchId, stagedOrderIds: [] })).progress?.calls ?? 0,
          {
            timeout: 10_000,
          },
        )
        .toBeGreaterThan(0);
      expect(await api.call('batches.enrichCancel', { batchId })).toEqual({ cancelled: true });
      const run = await running;
      expect(run.outcome).toBe('cancelled');
      expect(run.message).toContain('Cancelled');
      // Far fewer than the 16 questions a whole check asks (couriers, and 3 per code).
      expect(sandbox.requestCount() - requests).toBeLessThan(16);
      expect(await api.call('batches.enrichCancel', { batchId })).toEqual({ cancelled: false });
      const state = await api.call('batches.enrichment', { batchId, stagedOrderIds: [] });
      expect(state).toMatchObject({ progress: null, run: { outcome: 'cancelled' }, orders: [] });
    } finally {
      sandbox.setFaults({ latencyMs: 0 });
    }
  });

  it('reads the stored answers with their times after a restart, with the service gone', async () => {
    const before = await orderViews(mainBatch);
    const run = (await api.call('batches.enrichment', { batchId: mainBatch, stagedOrderIds: [] })).run;
    await core.close();
    await sandbox.close();
    await reopenCore();
    const requests = sandbox.requestCount();
    expect(await orderViews(mainBatch)).toEqual(before);
    expect((await api.call('batches.enrichment', { batchId: mainBatch, stagedOrderIds: [] })).run).toEqual(run);
    expect(sandbox.requestCount()).toBe(requests);
  });
});
