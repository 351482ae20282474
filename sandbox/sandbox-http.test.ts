import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toWireJson } from '../shared/wire-json.js';
import { requestClientCredentialsToken } from '../test/support/client-credentials.js';
import { sampleCreateWithClinic } from '../test/support/orders.js';
import { NO_FAULTS } from './faults.js';
import { startSandbox, type RunningSandbox, type StoredOrder } from './index.js';

/** The sandbox over plain HTTP (no app client in between): admin routes, auth, validation, faults' scope. */

let sandbox: RunningSandbox;
let token: string;

beforeAll(async () => {
  sandbox = await startSandbox({ statusStepMs: 3_600_000 });
  token = await requestClientCredentialsToken({ issuer: sandbox.issuer, ...sandbox.serviceClient });
});

afterAll(async () => {
  await sandbox?.close();
});

const api = (path: string, init: RequestInit = {}) => fetch(new URL(path, sandbox.apiUrl), init);
const put = (path: string, body: string, auth = true) =>
  api(path, {
    method: 'PUT',
    body,
    headers: { 'content-type': 'application/json', ...(auth ? { authorization: `Bearer ${token}` } : {}) },
  });

async function adminOrders(): Promise<StoredOrder[]> {
  const response = await api('__sandbox/orders');
  expect(response.status).toBe(200);
  return (await response.json()) as StoredOrder[];
}

describe('admin routes', () => {
  it('GET /__sandbox/orders lists every stored order with its raw body exactly as received', async () => {
    // Written by hand, with odd spacing and an 18-digit code, to show nothing is re-serialised.
    const order = sampleCreateWithClinic({ clinicOrderId: 'ADMIN-1', dmdCode: '388540111000001100' });
    const raw = toWireJson(order).replace('"customer":', '"customer" :  ');
    const created = await put('api/v1/Order/create-with-clinic', raw);
    expect(created.status).toBe(200);
    const { orderId } = (await created.json()) as { orderId: number };

    const listed = (await adminOrders()).find((o) => o.clinicOrderId === 'ADMIN-1');
    expect(listed).toMatchObject({
      pharmacyOrderId: orderId,
      clinicCode: 'CLINIC-A',
      status: 'Waiting Payment Success',
      route: 'create-with-clinic-v1',
      rawBody: raw,
      dispatchDate: null,
      trackingId: null,
      cancelReason: null,
    });
    expect(listed?.rawBody).toContain('"dmdCode":388540111000001100');
    expect(Date.parse(listed!.createdAt)).not.toBeNaN();
    expect(sandbox.listOrders()).toEqual(await adminOrders());
  });

  it('POST /__sandbox/faults changes the switches; a bad patch is refused with the field', async () => {
    const response = await api('__sandbox/faults', { method: 'POST', body: JSON.stringify({ errorRate: 1 }) });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ...NO_FAULTS, errorRate: 1 });
    expect(sandbox.getFaults().errorRate).toBe(1);
    const failing = await api('api/v2/Product/search?searchTerm=para');
    expect(failing.status).toBe(500);
    expect(await failing.json()).toMatchObject({ error: 'Internal Server Error', status: 500 });

    const bad = await api('__sandbox/faults', { method: 'POST', body: JSON.stringify({ errorRate: 2, typo: true }) });
    expect(bad.status).toBe(400);
    const envelope = (await bad.json()) as { details: Array<{ field: string }> };
    expect(envelope.details.map((d) => d.field)).toEqual(expect.arrayContaining(['errorRate', '(body)']));

    await api('__sandbox/faults', { method: 'POST', body: JSON.stringify({ errorRate: 0 }) });
    expect((await api('api/v2/Product/search?searchTerm=para')).status).toBe(200);
  });

  it('GET /__sandbox/cpu reports the process CPU time so far, which only grows', async () => {
    const read = async () => ((await (await api('__sandbox/cpu')).json()) as { cpuMicros: number }).cpuMicros;
    const first = await read();
    expect(first).toBeGreaterThan(0);
    for (let i = 0; i < 20; i += 1) await api('api/v2/Product/search?searchTerm=para');
    expect(await read()).toBeGreaterThan(first);
    expect((await api('__sandbox/cpu', { method: 'POST', body: '{}' })).status).toBe(405);
  });

  it('admin routes keep working through an outage; API requests do not, and are counted', async () => {
    sandbox.setFaults({ outage: true });
    try {
      const before = sandbox.requestCount();
      await expect(api('api/v2/Product/search?searchTerm=para')).rejects.toThrow();
      expect(sandbox.requestCount()).toBe(before + 1);
      expect((await api('__sandbox/faults')).status).toBe(200);
      await adminOrders();
      expect(sandbox.requestCount()).toBe(before + 1);
    } finally {
      sandbox.setFaults(NO_FAULTS);
    }
  });
});

describe('API envelope', () => {
  it('401 without a bearer token, with the envelope and a challenge', async () => {
    const response = await put('api/v2/Order/create', '{}', false);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await response.json()).toMatchObject({ error: 'Unauthorized', status: 401 });
  });

  it('400 validation lists each bad field by dotted path', async () => {
    const order = sampleCreateWithClinic({ clinicOrderId: 'BAD-1' });
    const raw = toWireJson(order)
      .replace('"dmdCode":42109611000001109', '"dmdCode":"12x"')
      .replace('"countryCode":"GBR"', '"countryCode":"UK"');
    const response = await put('api/v1/Order/create-with-clinic', raw);
    expect(response.status).toBe(400);
    const envelope = (await response.json()) as { status: number; details: Array<{ field: string; message: string }> };
    expect(envelope.status).toBe(400);
    expect(envelope.details.map((d) => d.field)).toEqual(
      expect.arrayContaining(['prescribedItems.0.dmdCode', 'homeAddress.countryCode']),
    );
    expect(sandbox.listOrders().some((o) => o.clinicOrderId === 'BAD-1')).toBe(false);
  });

  it('400 for a body that is not JSON; 404 for an unknown endpoint; 405 for a wrong method', async () => {
    expect((await put('api/v2/Order/create', '{"customer":')).status).toBe(400);
    const unknown = await api('api/v2/Order/nothing-here', { headers: { authorization: `Bearer ${token}` } });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ status: 404 });
    const wrongMethod = await api('api/v2/Order/create', { headers: { authorization: `Bearer ${token}` } });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('PUT');
  });

  it('matches paths case-insensitively, as the real service does', async () => {
    const response = await api('API/V2/PRODUCT/SEARCH?searchterm=Naproxen');
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain('"dmdCode":33188111000001101');
  });
});
