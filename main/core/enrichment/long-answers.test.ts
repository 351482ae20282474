import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COURIER_CODE_MAX, MAX_COURIER_OPTIONS } from '../../../shared/couriers.js';
import type { BatchEnrichment } from '../../../shared/enrichment-views.js';
import { DEFAULT_CODE_LISTS, DEFAULT_SENDING_PACE, ORDER_SERVICE_SCOPES } from '../../../shared/environment.js';
import { MAX_PRODUCTS_PER_CODE, PRODUCT_TEXT_MAX } from '../../../shared/products.js';
import { CoreClient } from '../../host/core-client.js';
import { forkSpawner } from '../../host/fork-spawner.js';
import { startHostileIdentity, type HostileIdentity } from '../auth/testing/hostile-identity.js';
import { silentLogger } from '../platform/logger.js';
import { MemorySecretStore } from '../platform/secret-store.js';
import { rawAnswer, startHostileServer, type HostileServer } from '../service/testing/hostile-server.js';
import { STORE_FILE } from '../store/store.js';
import { LOCAL_SANDBOX_ID } from '../environments/presets.js';
import { openTestCore } from '../testing/test-core.js';
import { templateCsv, uniqueOrder } from '../staging/testing/staging-fixtures.js';

/**
 * docs/security.md, finding 70: a batch check kept the service's product and courier answers as they came (up to
 * the 10 MB the client reads) and every order's view repeated them: the product's texts in each item (twice when out
 * of stock, in the warning), the courier list's codes in each order whose courier it does not list (twice too). The
 * preview's page of 50 orders was then gigabytes of JSON, which the core host's channel cannot carry: the host
 * ended (the shell restarted it) each time the page was read. The real core host (forked as browser mode runs it),
 * a loopback Order Service and identity server, real SQLite.
 */

const CODE = '322236009';
const MB = 1 << 20;
const ENVIRONMENT = 'long-answers';

interface ServiceProduct {
  productId: number;
  dmdCode: string;
  name: string;
  packSize?: number;
  form?: string;
  strength?: string;
}

/** About 9 MB: 25 products under the code, the first with megabytes of name, form and strength. */
const products: ServiceProduct[] = [
  { productId: 1, dmdCode: CODE, name: 'n'.repeat(4 * MB), form: 'f'.repeat(2 * MB), strength: 's'.repeat(MB) },
  ...Array.from({ length: 24 }, (_, i) => ({ productId: i + 2, dmdCode: CODE, name: `Pack ${i + 2}`, packSize: 32 })),
];
/** About 8 MB: 100,000 courier options none of the orders use, and one with a code of a megabyte. */
const couriers = [
  { courierCode: 'Z'.repeat(MB), deliveryOption: 'd'.repeat(MB), price: 1, currencyCode: 'GBP' },
  ...Array.from({ length: 100_000 }, (_, i) => ({
    courierCode: `C${i}`,
    deliveryOption: 'x',
    price: 1,
    currencyCode: 'GBP',
  })),
];

let dir: string;
let service: HostileServer;
let idp: HostileIdentity;
let client: CoreClient;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rxbatch-long-answers-'));
  idp = await startHostileIdentity();
  service = await startHostileServer((socket, request) => {
    const answer = (body: unknown) =>
      socket.end(rawAnswer(200, JSON.stringify(body), { 'content-type': 'application/json' }));
    const path = request.target;
    if (path.startsWith('/api/v2/Product/search')) return answer(products);
    if (path.startsWith('/api/v2/Product/stock-check')) return answer({ inStock: false });
    if (path.startsWith('/api/v2/CourierService/price-check')) return answer(couriers);
    return answer({ totalPacks: 1, unitPrice: 1, totalPrice: 1, currencyCode: 'GBP' });
  });
  client = new CoreClient({
    spawn: forkSpawner(),
    start: {
      dataDir: join(dir, 'data'),
      appVersion: '9.9.9',
      transport: 'browser',
      secrets: 'shell',
      importPaths: { kind: 'none' },
      desktop: false,
      localSandbox: { start: false },
    },
    services: { secrets: new MemorySecretStore() },
    logger: silentLogger,
  });
  await client.start();
}, 60_000);

afterAll(async () => {
  await client?.stop();
  await service?.close();
  await idp?.close();
  rmSync(dir, { recursive: true, force: true });
}, 30_000);

describe("a service's product and courier answers of any size", () => {
  it("the preview's page of orders is answered, small, by the same host; what is kept is cut", async () => {
    await client.request('environments.save', {
      create: true,
      environment: {
        id: ENVIRONMENT,
        name: 'Long answers',
        kind: 'remote',
        apiBaseUrl: service.url,
        issuer: idp.issuer,
        clientId: 'client',
        grant: 'client_credentials',
        scopes: [...ORDER_SERVICE_SCOPES],
        createWithClinicVersion: 'v1',
        requestTimeoutMs: 30_000,
        codeLists: DEFAULT_CODE_LISTS,
        ...DEFAULT_SENDING_PACE,
        ratePerSecond: 100,
      },
    });
    expect(await client.request('signin.clientCredentials', { environmentId: ENVIRONMENT, clientSecret: 's' })).toEqual(
      {
        ok: true,
      },
    );
    const orders = Array.from({ length: 60 }, () => {
      const order = uniqueOrder({}, 'LONG');
      order.prescription.courierCode = 'RMT24';
      order.prescribedItems = [{ dmdCode: CODE, medication: 'x', dosageInstructions: 'y', quantity: 1, pack: 1 }];
      return order;
    });
    const staged = await client.request('import.file', {
      environmentId: ENVIRONMENT,
      upload: { name: 'orders.csv', content: templateCsv(orders) },
    });
    if (staged.status !== 'staged') throw new Error(`not staged: ${staged.status}`);
    const run = await client.request('batches.enrich', { batchId: staged.batchId });
    expect(run.counts).toMatchObject({ codesOutOfStock: 1, courierCodesNotListed: 1, ordersWithWarnings: 60 });
    const pid = client.pid;

    // The grid's page with the service-warnings filter on. Before: the host ended ("The app's core stopped while
    // answering this"), and again at every read of the page.
    const page = await client.call('batches.enrichment', {
      batchId: staged.batchId,
      offset: 0,
      limit: 50,
      onlyWarnings: true,
    });
    expect(page.ok ? undefined : page.error).toBeUndefined();
    expect(client.pid).toBe(pid);
    expect(client.restarts).toBe(0);
    if (!page.ok) return;
    expect(JSON.stringify(page.value).length).toBeLessThan(4 * MB);
    const view = (page.value as BatchEnrichment).orders;
    expect(view).toHaveLength(50);
    const found = view[0]!.items[0]!.product;
    if (found.state !== 'found') throw new Error(`product ${found.state}`);
    expect(found.products).toHaveLength(MAX_PRODUCTS_PER_CODE);
    expect(found.products[0]).toMatchObject({
      name: 'n'.repeat(PRODUCT_TEXT_MAX.name),
      form: 'f'.repeat(PRODUCT_TEXT_MAX.form),
      strength: 's'.repeat(PRODUCT_TEXT_MAX.strength),
    });
    const courier = view[0]!.courier;
    if (courier.state !== 'not-listed') throw new Error(`courier ${courier.state}`);
    expect(courier.listed).toHaveLength(MAX_COURIER_OPTIONS);
    expect(courier.listed.every((code) => code.length <= COURIER_CODE_MAX)).toBe(true);

    // The Lookups screen's own call keeps the list whole but each text cut.
    const searched = await client.request('products.search', { environmentId: ENVIRONMENT, searchTerm: CODE });
    expect(searched.ok && searched.value[0]!.name.length).toBe(PRODUCT_TEXT_MAX.name);

    await client.stop();
    const db = new Database(join(dir, 'data', STORE_FILE), { readonly: true });
    try {
      const longest = db.prepare('SELECT max(length(value)) AS bytes FROM service_answers').get() as { bytes: number };
      // Before: 9 MB for the code's products, 8 MB for the courier list.
      expect(longest.bytes).toBeLessThan(64 * 1024);
    } finally {
      db.close();
    }
  }, 120_000);

  it('answers an earlier version kept whole are read cut', async () => {
    const t = await openTestCore('long-answers-kept');
    try {
      const order = uniqueOrder({}, 'KEPT');
      order.prescribedItems = [{ dmdCode: CODE, medication: 'x', dosageInstructions: 'y', quantity: 1, pack: 1 }];
      const staged = await t.api.call('import.file', {
        environmentId: LOCAL_SANDBOX_ID,
        upload: { name: 'orders.csv', content: templateCsv([order]) },
      });
      if (staged.status !== 'staged') throw new Error(`not staged: ${staged.status}`);
      const whole = products.map(({ productId, name, form, strength }) => ({
        productId,
        name,
        packSize: null,
        form: form ?? null,
        strength: strength ?? null,
      }));
      t.core.services.store.enrichment.write(LOCAL_SANDBOX_ID, [
        { kind: 'product', key: CODE, value: { products: whole } },
        { kind: 'couriers', key: '*', value: { options: couriers.map((option) => ({ ...option })) } },
      ]);
      const { orders: ids } = await t.api.call('batches.get', { batchId: staged.batchId, limit: 1 });
      const read = await t.api.call('batches.enrichment', { batchId: staged.batchId, stagedOrderIds: [ids[0]!.id] });
      const view = read.orders[0]!;
      const product = view.items[0]!.product;
      expect(product.state === 'found' && product.products.map((found) => found.name.length)).toEqual(
        Array.from({ length: MAX_PRODUCTS_PER_CODE }, (_, i) =>
          i === 0 ? PRODUCT_TEXT_MAX.name : `Pack ${i + 1}`.length,
        ),
      );
      expect(view.courier.state === 'not-listed' && view.courier.listed).toHaveLength(MAX_COURIER_OPTIONS);
    } finally {
      await t.close();
    }
  });
});
