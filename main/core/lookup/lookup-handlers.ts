import type { CallHandlers } from '../../../shared/contract.js';
import type { Environment } from '../../../shared/environment.js';
import type { ServiceResult } from '../../../shared/errors.js';
import type { AppServices } from '../app-services.js';
import type { CallOutcome } from '../service/client.js';
import { lookUpOrders } from './order-lookup.js';

type LookupCallName = 'couriers.priceList' | 'products.search' | 'products.stock' | 'products.price' | 'orders.lookup';

/** The service's outcome without the call's bookkeeping, as the contract carries it. */
function result<T>(outcome: CallOutcome<T>): ServiceResult<T> {
  return outcome.ok ? { ok: true, value: outcome.value } : { ok: false, error: outcome.error };
}

/** Secured calls to an environment without a client id cannot succeed: say so without touching the network. */
function notConfigured(environment: Environment): ServiceResult<never> | undefined {
  if (environment.clientId) return undefined;
  return {
    ok: false,
    error: {
      kind: 'auth',
      status: 0,
      message: `${environment.name} has no client id yet: add the one CloudRx issued you, then sign in.`,
    },
  };
}

function productRef(productId: number | undefined, dmdCode: string | undefined) {
  return { ...(productId !== undefined ? { productId } : {}), ...(dmdCode !== undefined ? { dmdCode } : {}) };
}

/** The look-up calls of the contract: products, stock, prices, couriers, and orders at the service. */
export function buildLookupHandlers(services: AppServices): Pick<CallHandlers, LookupCallName> {
  const { registry, store } = services;
  const known = (environmentId: string) => registry.get(environmentId);
  return {
    'couriers.priceList': async ({ environmentId }) =>
      notConfigured(registry.get(environmentId)) ??
      result(await registry.client(environmentId, 'secured').courierPriceList()),
    'products.search': async ({ environmentId, searchTerm }) =>
      result(await registry.client(environmentId, 'anonymous').searchProducts(searchTerm)),
    'products.stock': async ({ environmentId, productId, dmdCode }) =>
      notConfigured(registry.get(environmentId)) ??
      result(await registry.client(environmentId, 'secured').stockCheck(productRef(productId, dmdCode))),
    'products.price': async ({ environmentId, productId, dmdCode, totalPacks }) =>
      notConfigured(registry.get(environmentId)) ??
      result(await registry.client(environmentId, 'secured').priceCheck(productRef(productId, dmdCode), totalPacks)),

    'orders.lookup': ({ environmentId, query }) => {
      const environment = known(environmentId);
      const refused = notConfigured(environment);
      if (refused && !refused.ok) {
        return Promise.resolve({ windows: [], records: [], truncated: false, error: refused.error });
      }
      return lookUpOrders(store, environmentId, registry.client(environmentId, 'secured'), query);
    },
  };
}
