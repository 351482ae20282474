import type { AppInfo, CallHandlers } from '../../../shared/contract.js';
import type { CodeLists } from '../../../shared/environment.js';
import { ContractError } from '../../../shared/errors.js';
import type { AppServices } from '../app-services.js';
import { refreshOrder } from './refresh-order.js';
import { orderDetail, toOrderSummary, viewOrderSource } from '../views.js';

type OrdersCallName = 'orders.list' | 'orders.get' | 'orders.source' | 'orders.cancel' | 'orders.refresh';

/**
 * The orders calls of the contract: the local list and detail, an order's source (audited with the front end it
 * was viewed through, `transport`), cancel requests and status refreshes.
 */
export function buildOrdersHandlers(
  services: AppServices,
  transport: AppInfo['transport'],
): Pick<CallHandlers, OrdersCallName> {
  const { registry, store } = services;
  const known = (environmentId: string) => registry.get(environmentId);
  return {
    'orders.list': ({
      environmentId,
      states,
      needsAttention,
      clinicCode,
      clinicOrderId,
      remoteStatus,
      createdFrom,
      createdTo,
      createdAtFrom,
      createdAtBefore,
      patientSurname,
      afterId,
      limit,
    }) => {
      const pageSize = limit ?? 100;
      if (needsAttention && (states !== undefined || environmentId === undefined)) {
        throw new ContractError({
          code: 'invalid-input',
          message: 'needsAttention is a set of states of its own: give it with environmentId and without states',
        });
      }
      const orders = store.orders.list({
        ...(environmentId !== undefined ? { environmentId } : {}),
        ...(states !== undefined ? { states } : {}),
        ...(needsAttention ? { needsAttention } : {}),
        ...(clinicCode !== undefined ? { clinicCode } : {}),
        ...(clinicOrderId !== undefined ? { clinicOrderId } : {}),
        ...(remoteStatus !== undefined ? { remoteStatus } : {}),
        ...(createdFrom !== undefined ? { createdFrom } : {}),
        ...(createdTo !== undefined ? { createdTo } : {}),
        // Written as the store writes its times, so the texts compare as the instants do.
        ...(createdAtFrom !== undefined ? { createdAtFrom: new Date(createdAtFrom).toISOString() } : {}),
        ...(createdAtBefore !== undefined ? { createdAtBefore: new Date(createdAtBefore).toISOString() } : {}),
        ...(patientSurname !== undefined ? { patientSurname } : {}),
        // Newest first; the cursor (`afterId`, named for "after this one in the list") is the last id shown.
        newestFirst: true,
        ...(afterId !== undefined && afterId > 0 ? { beforeId: afterId } : {}),
        limit: pageSize,
      });
      const codeLists = new Map<string, CodeLists | undefined>();
      const listsOf = (id: string) => {
        if (!codeLists.has(id)) codeLists.set(id, store.environments.get(id)?.codeLists);
        return codeLists.get(id);
      };
      return Promise.resolve({
        orders: orders.map((order) => toOrderSummary(order, listsOf(order.environmentId))),
        nextAfterId: orders.length === pageSize ? orders[orders.length - 1]!.id : null,
      });
    },
    'orders.get': ({ orderId }) => {
      const detail = orderDetail(store, orderId);
      // A link to an order from another computer or data folder, or an old bookmark: said as the admin's sentence.
      if (!detail) {
        throw new ContractError({
          code: 'failed',
          message: `Rx Batch has no order ${orderId} here: the link may be from another computer or data folder. Find the order by its clinic order id, or look it up on the service.`,
        });
      }
      return Promise.resolve(detail);
    },
    'orders.source': ({ orderId }) => {
      // Which front end asked is the transport this core serves (the desktop app, browser mode, direct calls).
      const source = viewOrderSource(store, orderId, transport);
      if (source) return Promise.resolve(source);
      const exists = store.orders.get(orderId) !== undefined;
      throw new ContractError({
        code: 'invalid-input',
        message: exists
          ? `order ${orderId} has no kept source text (imported from JSON or before the app kept each order's source)`
          : `there is no order ${orderId}`,
      });
    },
    'orders.cancel': ({ orderIds, reason }) => Promise.resolve({ results: services.cancelOrders(orderIds, reason) }),
    'orders.refresh': async ({ environmentId, orderId }) => {
      known(environmentId);
      if (orderId !== undefined) {
        const order = store.orders.get(orderId);
        if (order?.environmentId !== environmentId) {
          throw new ContractError({
            code: 'invalid-input',
            message: `there is no order ${orderId} in ${environmentId}`,
          });
        }
        const one = await refreshOrder(
          store,
          registry.client(environmentId, 'secured'),
          orderId,
          () => new Date(),
          (_environmentId, noted) => services.serviceNoted(noted),
        );
        if (one.changed.length > 0) services.ordersChanged(environmentId, one.changed);
        return {
          checked: one.checked,
          changed: one.changed.length,
          stoppedBy: one.stoppedBy,
          at: new Date().toISOString(),
        };
      }
      const round = await services.poller.refresh(environmentId);
      return {
        checked: round.checked,
        changed: round.changed.length,
        stoppedBy: round.stoppedBy ?? null,
        at: new Date().toISOString(),
      };
    },
  };
}
