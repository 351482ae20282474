import { rmSync } from 'node:fs';
import { createWithClinicV1Schema } from '../../../../shared/orders.js';
import { parseWireJson } from '../../../../shared/wire-json.js';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../../../sandbox/index.js';
import { clientCredentialsTokenSource } from '../../../../test/support/client-credentials.js';
import { createOrderServiceClient, type OrderServiceClient } from '../../service/client.js';
import type { NewOrder } from '../../store/orders-repo.js';
import { enqueueOrders, openStore, type Store } from '../../store/store.js';
import { LOCAL, sampleOrder, storeWithBatch, tempDataDir } from '../../store/testing/store-fixtures.js';

/**
 * Set-up for the tracking tests: a real sandbox, a real store whose local-sandbox profile points at it, a
 * client signed in with the sandbox's service account, and orders created at the service exactly as the
 * submitter leaves them (state `created` with the sandbox's pharmacy order id).
 */
export interface TrackingWorld {
  sandbox: RunningSandbox;
  store: Store;
  dataDir: string;
  client: OrderServiceClient;
  environmentId: string;
  batchId: number;
  close(): Promise<void>;
}

export async function startTrackingWorld(
  sandboxOptions: SandboxOptions = {},
  storeNow?: () => Date,
): Promise<TrackingWorld> {
  const sandbox = await startSandbox(sandboxOptions);
  const dataDir = tempDataDir('rx-tracking-');
  const store = openStore({ dataDir, ...(storeNow ? { now: storeNow } : {}) });
  store.environments.upsert({
    ...LOCAL,
    apiBaseUrl: sandbox.apiUrl,
    issuer: sandbox.issuer,
    clientId: sandbox.serviceClient.clientId,
  });
  const batch = store.batches.create({
    environmentId: LOCAL.id,
    sourceFileName: 'orders.json',
    kind: 'json',
    rowCount: 0,
    invalidCount: 0,
  });
  const client = createOrderServiceClient({
    apiBaseUrl: sandbox.apiUrl,
    tokens: clientCredentialsTokenSource({
      issuer: sandbox.issuer,
      clientId: sandbox.serviceClient.clientId,
      clientSecret: sandbox.serviceClient.clientSecret,
    }),
    timeoutMs: 5_000,
    userAgent: 'RxBatch/test',
    createWithClinicVersion: 'v1',
  });
  return {
    sandbox,
    store,
    dataDir,
    client,
    environmentId: LOCAL.id,
    batchId: batch.id,
    async close() {
      store.close();
      await sandbox.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Queues `count` orders and creates them at the sandbox with the client, as the submitter would. */
export async function createdOrders(world: TrackingWorld, count: number): Promise<number[]> {
  const orders = Array.from({ length: count }, () => sampleOrder());
  const ids = enqueueOrders(world.store, world.batchId, orders);
  for (const [index, id] of ids.entries()) {
    const body = createWithClinicV1Schema.parse(parseWireJson(orders[index]!.requestBody));
    const created = await world.client.createWithClinic(body);
    if (!created.ok) throw new Error(`sandbox refused a sample order: ${created.error.message}`);
    world.store.orders.transition(
      id,
      ['queued'],
      'created',
      { pharmacyOrderId: created.value.orderId },
      { actor: 'submitter', action: 'order.created' },
    );
  }
  return ids;
}

/**
 * A store (`storeWithBatch`) with one order created at the service as the submitter leaves it: state `created`
 * with `pharmacyOrderId` (9001 unless given). For the tests that answer its lookups from a raw server.
 */
export function storeWithCreatedOrder(
  options: { pharmacyOrderId?: number; order?: Parameters<typeof sampleOrder>[0]; now?: () => Date } = {},
): { store: Store; dataDir: string; batchId: number; id: number; order: NewOrder } {
  const world = storeWithBatch(options.now);
  const order = sampleOrder(options.order);
  const id = createdOrderIn(world.store, world.batchId, order, options.pharmacyOrderId ?? 9001);
  return { ...world, id, order };
}

/** Queues `order` in batch `batchId` and marks it created at the service with `pharmacyOrderId`, as the submitter does. */
export function createdOrderIn(store: Store, batchId: number, order: NewOrder, pharmacyOrderId: number): number {
  const [id] = enqueueOrders(store, batchId, [order]);
  store.orders.transition(
    id!,
    ['queued'],
    'created',
    { pharmacyOrderId },
    { actor: 'submitter', action: 'order.created' },
  );
  return id!;
}
