import type { Handler } from './handler-context.js';
import { courierPriceList } from './handlers/couriers.js';
import { cancelOrder } from './handlers/orders-cancel.js';
import { createV2, createWithClinic, createWithHl7 } from './handlers/orders-create.js';
import {
  statusByClinicOrderNumber,
  statusByDateRange,
  statusByOrderId,
  statusWithClinicCode,
} from './handlers/orders-status.js';
import { priceCheck, searchProducts, stockCheck } from './handlers/products.js';

/** The Order Service's endpoints, the scope each needs (null: anonymous), and whether it changes state. */

export type Scope = 'cloudrx_orderservice' | 'cloudrx_productservice' | 'cloudrx_courierservice';

export interface Route {
  method: 'GET' | 'PUT' | 'POST';
  /** Lower-case: paths are matched case-insensitively, as ASP.NET routes are. */
  path: string;
  scope: Scope | null;
  /** Creates and cancel: the commit-then-drop fault applies to these. */
  mutating: boolean;
  handler: Handler;
}

const ORDERS: Scope = 'cloudrx_orderservice';
const PRODUCTS: Scope = 'cloudrx_productservice';
const COURIERS: Scope = 'cloudrx_courierservice';

export const ROUTES: readonly Route[] = [
  { method: 'PUT', path: '/api/v2/order/create', scope: ORDERS, mutating: true, handler: createV2 },
  {
    method: 'PUT',
    path: '/api/v1/order/create-with-clinic',
    scope: ORDERS,
    mutating: true,
    handler: createWithClinic('create-with-clinic-v1'),
  },
  {
    method: 'PUT',
    path: '/api/v2/order/create-with-clinic',
    scope: ORDERS,
    mutating: true,
    handler: createWithClinic('create-with-clinic-v2'),
  },
  {
    method: 'PUT',
    path: '/api/v2/order/create-with-hl7message',
    scope: ORDERS,
    mutating: true,
    handler: createWithHl7,
  },
  { method: 'GET', path: '/api/v2/order/status', scope: ORDERS, mutating: false, handler: statusByOrderId },
  {
    method: 'GET',
    path: '/api/v2/order/status-with-clinic-code',
    scope: ORDERS,
    mutating: false,
    handler: statusWithClinicCode,
  },
  {
    method: 'GET',
    path: '/api/v2/order/status-clinic-ordernumber',
    scope: ORDERS,
    mutating: false,
    handler: statusByClinicOrderNumber,
  },
  {
    method: 'GET',
    path: '/api/v2/order/status-date-range',
    scope: ORDERS,
    mutating: false,
    handler: statusByDateRange,
  },
  { method: 'POST', path: '/api/v2/order/cancel', scope: ORDERS, mutating: true, handler: cancelOrder },
  { method: 'GET', path: '/api/v2/product/stock-check', scope: PRODUCTS, mutating: false, handler: stockCheck },
  { method: 'GET', path: '/api/v2/product/price-check', scope: PRODUCTS, mutating: false, handler: priceCheck },
  { method: 'GET', path: '/api/v2/product/search', scope: null, mutating: false, handler: searchProducts },
  {
    method: 'GET',
    path: '/api/v2/courierservice/price-check',
    scope: COURIERS,
    mutating: false,
    handler: courierPriceList,
  },
];

export type RouteMatch = { route: Route } | { allowed: string[] } | null;

/** The route for a method and path; `allowed` when the path exists with other methods (a 405). */
export function matchRoute(method: string, pathname: string): RouteMatch {
  const path = pathname.toLowerCase().replace(/\/+$/, '');
  const onPath = ROUTES.filter((r) => r.path === path);
  const route = onPath.find((r) => r.method === method);
  if (route) return { route };
  return onPath.length > 0 ? { allowed: onPath.map((r) => r.method) } : null;
}
