import { faultsPatchSchema, type FaultSwitches } from '../faults.js';
import { badRequest, HttpError, notFound, type Reply } from '../http-io.js';
import { fieldErrorsOf, VALIDATION_FAILED } from '../order-rules.js';
import type { OrderStore } from '../order-store.js';

/**
 * Sandbox-only admin routes, outside `/api/`: no faults, and no access token but the launch's admin token
 * (checked before this runs, see admin-guard.ts; without one the routes do not exist). `GET /__sandbox/orders`
 * lists every stored order with its raw body; `GET|POST /__sandbox/faults` reads or changes the fault switches.
 */

export interface AdminDeps {
  store: OrderStore;
  faults: FaultSwitches;
}

export function handleAdmin(method: string, path: string, rawBody: string, deps: AdminDeps): Reply {
  const route = path.toLowerCase().replace(/\/+$/, '');
  if (route === '/__sandbox/orders') {
    if (method !== 'GET') throw new HttpError(405, 'Method Not Allowed', { message: 'use GET' }, { allow: 'GET' });
    return { status: 200, body: deps.store.listOrders() };
  }
  if (route === '/__sandbox/faults') {
    if (method === 'GET') return { status: 200, body: deps.faults.get() };
    if (method !== 'POST')
      throw new HttpError(405, 'Method Not Allowed', { message: 'use GET or POST' }, { allow: 'GET, POST' });
    let patch: unknown;
    try {
      // Plain JSON.parse: fault switches hold no dm+d codes.
      patch = rawBody.trim() ? JSON.parse(rawBody) : {};
    } catch {
      throw badRequest('The request body is not valid JSON.', [
        { field: '(body)', message: 'send the fault switches as JSON' },
      ]);
    }
    const parsed = faultsPatchSchema.safeParse(patch);
    if (!parsed.success) throw badRequest(VALIDATION_FAILED, fieldErrorsOf(parsed.error));
    return { status: 200, body: deps.faults.set(parsed.data) };
  }
  if (route === '/__sandbox/cpu') {
    if (method !== 'GET') throw new HttpError(405, 'Method Not Allowed', { message: 'use GET' }, { allow: 'GET' });
    // The sandbox process's CPU time so far (µs): benchmarks tell how busy the service was kept.
    const { user, system } = process.cpuUsage();
    return { status: 200, body: { cpuMicros: user + system } };
  }
  throw notFound(`no sandbox admin route ${route}`);
}
