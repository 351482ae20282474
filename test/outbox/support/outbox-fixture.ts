import { expect } from 'vitest';
import { verifyAuditChain, type AuditChainReport } from '../../../main/core/audit/verify-chain.js';
import type { OrderServiceClient, TokenSource } from '../../../main/core/service/client.js';
import type { NewOrder, OrderRecord } from '../../../main/core/store/orders-repo.js';
import { enqueueOrders, openStore, type Store } from '../../../main/core/store/store.js';
import { LOCAL, removeDir, sampleOrder, tempDataDir } from '../../../main/core/store/testing/store-fixtures.js';
import { toWireJson } from '../../../shared/wire-json.js';
import type { CreateV2, CreateWithClinicV1Input } from '../../../shared/orders.js';
import type { RunningSandbox } from '../../../sandbox/index.js';
import { sandboxServiceClient } from '../../support/sandbox-client.js';

/** Shared set-up for the outbox tests: a store pointed at a running sandbox, sample orders, and the final checks. */

export const ENVIRONMENT_ID = LOCAL.id;

export interface OutboxTestStore {
  store: Store;
  dataDir: string;
  batchId: number;
  close(): void;
}

/** A fresh data directory whose environment profile points at the sandbox, with one import batch. */
export function storeForSandbox(sandbox: RunningSandbox, dataDir = tempDataDir('rx-outbox-')): OutboxTestStore {
  const store = openStore({ dataDir });
  store.environments.upsert({
    ...LOCAL,
    apiBaseUrl: sandbox.apiUrl,
    issuer: sandbox.issuer,
    clientId: sandbox.serviceClient.clientId,
    requestTimeoutMs: 10_000,
  });
  const batch = store.batches.create({
    environmentId: ENVIRONMENT_ID,
    sourceFileName: 'orders.json',
    kind: 'json',
    rowCount: 0,
    invalidCount: 0,
  });
  return {
    store,
    dataDir,
    batchId: batch.id,
    close() {
      if (store.isOpen) store.close();
      removeDir(dataDir);
    },
  };
}

export function sandboxClient(
  sandbox: RunningSandbox,
  o: { apiBaseUrl?: string; tokens?: TokenSource; timeoutMs?: number } = {},
): OrderServiceClient {
  // As the app's clients (environments/registry.ts): faults meet requests on connections opened ahead too.
  return sandboxServiceClient(sandbox, { warmConnections: 4, ...o });
}

/** `count` v1 orders with clinic order ids `<prefix>-0001`…, as the importer would hand them over. */
export function sampleOrders(prefix: string, count: number, clinicCode = 'CLINIC-A'): NewOrder[] {
  return Array.from({ length: count }, (_, index) =>
    sampleOrder({ clinicCode, clinicOrderId: `${prefix}-${String(index + 1).padStart(4, '0')}` }),
  );
}

/** An order of any route from its body, as the importer would store it. */
export function orderFrom(route: 'v1' | 'v2', body: CreateWithClinicV1Input | CreateV2): NewOrder {
  return {
    clinicCode: body.clinicInformation.clinicCode,
    clinicOrderId: body.prescription.clinicOrderId,
    route,
    requestBody: toWireJson(body),
    items: body.prescribedItems.map((item) => ({
      dmdCode: String(item.dmdCode),
      productId: item.productId ?? null,
      medication: item.medication,
      quantity: item.quantity,
    })),
  };
}

export function hl7Order(message: string, clinicCode: string, clinicOrderId: string): NewOrder {
  return { clinicCode, clinicOrderId, route: 'hl7', requestBody: message, items: [] };
}

export function enqueue(t: OutboxTestStore, orders: NewOrder[]): number[] {
  return enqueueOrders(t.store, t.batchId, orders);
}

export function allOrders(store: Store, environmentId: string = ENVIRONMENT_ID): OrderRecord[] {
  const out: OrderRecord[] = [];
  for (;;) {
    const page = store.orders.list({ environmentId, afterId: out.at(-1)?.id ?? 0, limit: 500 });
    if (page.length === 0) return out;
    out.push(...page);
  }
}

/**
 * The exactly-once check: the sandbox holds each of these clinic order ids exactly once, every local order is
 * `created` with the sandbox's pharmacy order id, and the audit chain verifies (by `verify`: a store the services
 * opened is keyed, and only they can check it).
 */
export function expectEachCreatedOnce(
  sandbox: RunningSandbox,
  store: Store,
  clinicOrderIds: readonly string[],
  verify: () => AuditChainReport = () => verifyAuditChain(store),
  environmentId: string = ENVIRONMENT_ID,
): void {
  const remote = sandbox.listOrders().filter((order) => clinicOrderIds.includes(order.clinicOrderId));
  const perId = new Map<string, number[]>();
  for (const order of remote)
    perId.set(order.clinicOrderId, [...(perId.get(order.clinicOrderId) ?? []), order.pharmacyOrderId]);
  const doubled = [...perId].filter(([, ids]) => ids.length > 1).map(([id]) => id);
  const missing = clinicOrderIds.filter((id) => !perId.has(id));
  expect({ doubled, missing }).toEqual({ doubled: [], missing: [] });

  const local = allOrders(store, environmentId).filter((order) => clinicOrderIds.includes(order.clinicOrderId));
  expect(local).toHaveLength(clinicOrderIds.length);
  const wrong = local
    .filter((order) => order.state !== 'created' || order.pharmacyOrderId !== perId.get(order.clinicOrderId)?.[0])
    .map((order) => ({
      clinicOrderId: order.clinicOrderId,
      state: order.state,
      pharmacyOrderId: order.pharmacyOrderId,
    }));
  expect(wrong).toEqual([]);
  expect(verify()).toMatchObject({ ok: true });
}

export { removeDir, tempDataDir };

/** What the tracking side does when the admin cancels a created order: the state and an open command, together. */
export function requestCancel(store: Store, orderId: number, reason: string): void {
  store.inTransaction(() => {
    const order = store.orders.get(orderId)!;
    expect(
      store.orders.transition(
        orderId,
        [order.state],
        'cancel_requested',
        {},
        {
          actor: 'user',
          action: 'order.cancel-requested',
        },
      ),
    ).toBe(true);
    store.cancellations.request(orderId, reason);
  });
}
