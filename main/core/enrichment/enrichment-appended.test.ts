import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendWithLibrary } from '../../../test/support/hl7-client.js';
import type { RxBatchApi } from '../../../shared/contract.js';
import type { BatchEnrichment, EnrichmentProgress } from '../../../shared/enrichment-views.js';
import type { CreateWithClinicV1Input } from '../../../shared/orders.js';
import { startSandbox, type RunningSandbox } from '../../../sandbox/index.js';
import type { Core } from '../app-core.js';
import { LOCAL_SANDBOX_ID } from '../environments/presets.js';
import { writeRde011 } from '../importing/rde-writer.js';
import { IntakeService } from '../intake/intake-service.js';
import { StagingService } from '../staging/staging-service.js';
import { uniqueOrder } from '../staging/testing/staging-fixtures.js';
import { openCore } from '../testing/test-core.js';
import { enrichmentFor } from './enrichment-handlers.js';

// Live intake appends each message to its sender's batch of the day; once that batch was checked with the service,
// the orders appended after the check are checked too, and only they: through the app's own intake (a real MLLP
// listener), the contract and a real sandbox over loopback, counting the requests the sandbox gets.

const PARACETAMOL = '322236009'; // in stock, pack size 32
const TADALAFIL = '177803111000001105'; // out of stock, pack size 4
const IBUPROFEN = '39732311000001104'; // in stock, pack size 24
const UNKNOWN = '42109611000001109'; // a valid dm+d code the sandbox does not list
const SENDER = { sendingApplication: 'EPR-9', sendingFacility: 'CLINIC-E' };
const OTHER = { sendingApplication: 'LAB-9', sendingFacility: 'CLINIC-E' };

describe('enrichment of orders appended to a checked batch', () => {
  let sandbox: RunningSandbox;
  let core: Core;
  let api: RxBatchApi;
  let dir: string;
  let port: number;
  let seq = 0;
  const progress: EnrichmentProgress[] = [];

  /** One order with one item: HL7 carries the quantity (packs are worked out from the pack size). */
  function message(dmdCode: string, quantity: number, sender = SENDER): string {
    const order: CreateWithClinicV1Input = uniqueOrder({}, 'APPEND');
    order.prescribedItems = [{ dmdCode, medication: 'As prescribed', dosageInstructions: 'As directed', quantity }];
    seq += 1;
    return writeRde011(order, { controlId: `APP-${seq}`, timestamp: '20261126101500', ...sender });
  }

  async function dayBatch(application: string, orders: number): Promise<number> {
    for (let i = 0; i < 400; i += 1) {
      const batches = await api.call('batches.list', { environmentId: LOCAL_SANDBOX_ID });
      const batch = batches.find((b) =>
        b.sourceFileName.startsWith(application.includes('^') ? `${application} ` : `${application}^CLINIC-E `),
      );
      if (batch && batch.counts.total >= orders) return batch.id;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`the batch of the day of ${application} never held ${orders} orders`);
  }

  /** The batch's enrichment once its stored run counts `orders` orders (or as it is after waiting for it). */
  async function enrichmentOnceCounting(batchId: number, orders: number): Promise<BatchEnrichment> {
    let state = await api.call('batches.enrichment', { batchId, offset: 0, limit: 50 });
    for (let i = 0; i < 400 && (state.run?.counts.orders !== orders || state.progress !== null); i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      state = await api.call('batches.enrichment', { batchId, offset: 0, limit: 50 });
    }
    return state;
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rxbatch-enrichment-appended-'));
    sandbox = await startSandbox({ statusStepMs: 60_000 });
    ({ core, api } = await openCore(join(dir, 'data')));
    core.events.subscribe('enrichment.progress', (payload) => progress.push(payload));
    const { registry, signin } = core.services;
    await registry.update({
      ...registry.get(LOCAL_SANDBOX_ID),
      apiBaseUrl: sandbox.apiUrl,
      issuer: sandbox.issuer,
      clientId: sandbox.serviceClient.clientId,
      grant: 'client_credentials' as const,
      concurrency: 4,
      ratePerSecond: 100,
    });
    expect(await signin.clientCredentials(LOCAL_SANDBOX_ID, sandbox.serviceClient.clientSecret)).toEqual({ ok: true });
    // What HL7 cannot carry (payment, courier, currency) comes from each sender's profile: every order is valid.
    for (const sender of [SENDER, OTHER]) {
      await api.call('profiles.save', {
        profile: {
          name: sender.sendingApplication,
          columns: {},
          constants: { paymentType: 'Account', courierCode: 'RMT24', currencyCode: 'GBP' },
          valueMaps: {},
          hl7Sender: {
            application: sender.sendingApplication,
            facility: sender.sendingFacility,
            messageType: 'RDE^O11',
          },
        },
      });
    }
    const started = await api.call('intake.start', { environmentId: LOCAL_SANDBOX_ID, port: 0, onArrival: 'hold' });
    port = Number(started.channels[0]!.address.split(':')[1]);
  });

  afterAll(async () => {
    await core.close();
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('checks only the new orders, and the summary counts the whole batch', async () => {
    expect((await sendWithLibrary(port, [message(IBUPROFEN, 24)])).map((ack) => ack.get('MSA.1'))).toEqual(['AA']);
    const batchId = await dayBatch('EPR-9', 1);
    let requests = sandbox.requestCount();
    const first = await api.call('batches.enrich', { batchId });
    // The product search, its stock, the price of 1 pack, and the courier list.
    expect(sandbox.requestCount() - requests).toBe(4);
    expect(first).toMatchObject({ outcome: 'complete', calls: 4, reused: 0, checkedThrough: 1 });
    expect(first.counts).toMatchObject({ orders: 1, codes: 1 });

    // Two more messages after the check, with codes the check did not ask about.
    requests = sandbox.requestCount();
    const acks = await sendWithLibrary(port, [message(PARACETAMOL, 32), message(TADALAFIL, 4)]);
    expect(acks.map((ack) => ack.get('MSA.1'))).toEqual(['AA', 'AA']);
    const state = await enrichmentOnceCounting(batchId, 3);
    // Their two codes were asked about (search, stock, the price of 1 pack each), nothing else.
    expect(sandbox.requestCount() - requests).toBe(6);
    expect(state.run).toMatchObject({
      outcome: 'complete',
      startedAt: first.startedAt,
      checkedThrough: 3,
      calls: 10,
      counts: { orders: 3, items: 3, codes: 3, codesFound: 3, codesOutOfStock: 1, itemsOutOfStock: 1, itemsPriced: 3 },
    });
    // The two messages may be staged together or one after the other (one refresh each). Each refresh reused only
    // the courier list the check got: the first order's code was not looked at again (that would reuse 3 more).
    const log = await api.call('log.list', { action: 'batch.enriched' });
    const refreshes = log.entries.filter((entry) => entry.actor === 'system');
    expect(refreshes.length).toBeGreaterThanOrEqual(1);
    expect(refreshes.length).toBeLessThanOrEqual(2);
    expect(state.run!.reused).toBe(refreshes.length);
    expect(state.run!.counts.itemsNotChecked).toBe(0);
    expect(state.run!.message).toContain('Checked 3 dm+d codes and 1 courier code for 3 orders with 10 calls');
    const [checked, , appended] = state.orders;
    expect(checked!.items[0]).toMatchObject({ product: { state: 'found' }, stock: { state: 'in-stock' } });
    expect(appended!.items[0]).toMatchObject({
      product: { state: 'found' },
      stock: { state: 'out-of-stock' },
      price: { state: 'priced' },
    });
    expect(appended!.warnings.map((warning) => warning.code)).toContain('service.outOfStock');

    // Audited as the system's, with counts only (newest first).
    expect(log.entries.map((entry) => [entry.actor, entry.details.operation ?? null])).toEqual([
      ...refreshes.map(() => ['system', 'appended orders']),
      ['user', null],
    ]);
    expect(log.entries[0]!.details.orderCount).toBe(3);
    // Nothing new arrived: a change of the batch asks nothing.
    requests = sandbox.requestCount();
    expect(await enrichmentFor(core.services).refreshAppended(batchId)).toMatchObject({ checkedThrough: 3, calls: 10 });
    expect(sandbox.requestCount()).toBe(requests);
  });

  it('checks orders appended where no change was told (`rx-batch serve`) when the preview reads the batch', async () => {
    const SERVE = { sendingApplication: 'EPR-9', sendingFacility: 'CLINIC-S' };
    await api.call('profiles.save', {
      profile: {
        name: 'EPR-9 S',
        columns: {},
        constants: { paymentType: 'Account', courierCode: 'RMT24', currencyCode: 'GBP' },
        valueMaps: {},
        hl7Sender: { application: 'EPR-9', facility: 'CLINIC-S', messageType: 'RDE^O11' },
      },
    });
    await sendWithLibrary(port, [message(PARACETAMOL, 32, SERVE)]);
    const batchId = await dayBatch('EPR-9^CLINIC-S', 1);
    await api.call('batches.enrich', { batchId });
    // `serve`'s intake over the same data: it appends to the batch of the day and tells no one.
    const { store } = core.services;
    const serve = new IntakeService({
      store,
      staging: new StagingService({ store, codeListsFor: (id) => core.services.registry.get(id).codeLists }),
      environmentId: LOCAL_SANDBOX_ID,
    });
    expect((await serve.handle(Buffer.from(message(UNKNOWN, 8, SERVE)), '127.0.0.1:1')).code).toBe('AA');
    await serve.staged();
    await serve.close();
    const requests = sandbox.requestCount();
    // The first read shows the check as it was, and starts the refresh of the new order.
    const stale = await api.call('batches.enrichment', { batchId, offset: 0, limit: 50 });
    expect(stale.run?.counts.orders).toBe(1);
    const state = await enrichmentOnceCounting(batchId, 2);
    expect(state.run).toMatchObject({ checkedThrough: 2, counts: { orders: 2, codes: 2, codesUnknown: 1 } });
    // The new code's search (the service lists no product for it, so no stock or price to ask).
    expect(sandbox.requestCount() - requests).toBe(1);
    expect(state.orders[1]!.items[0]).toMatchObject({ product: { state: 'unknown' } });
    expect(state.orders[1]!.warnings.map((warning) => warning.code)).toEqual(['service.unknownCode']);
  });

  it('asks nothing for a batch of the day never checked', async () => {
    const requests = sandbox.requestCount();
    await sendWithLibrary(port, [message(IBUPROFEN, 24, OTHER)]);
    const batchId = await dayBatch('LAB-9', 1);
    await sendWithLibrary(port, [message(IBUPROFEN, 48, OTHER)]);
    await dayBatch('LAB-9', 2);
    expect(await enrichmentFor(core.services).refreshAppended(batchId)).toBeNull();
    expect((await api.call('batches.enrichment', { batchId })).run).toBeNull();
    expect(sandbox.requestCount()).toBe(requests);
    expect(progress.filter((p) => p.batchId === batchId)).toEqual([]);
  });
});
