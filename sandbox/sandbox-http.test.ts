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
  sandbox = await startSandbox({ statusStepMs: 3_600_000, adminRoutes: true });
  token = await requestClientCredentialsToken({ issuer: sandbox.issuer, ...sandbox.serviceClient });
});

afterAll(async () => {
  await sandbox?.close();
});

const api = (path: string, init: RequestInit = {}) => fetch(new URL(path, sandbox.apiUrl), init);
/** An admin request as tests make them: this launch's token, and JSON for a body. */
const admin = (path: string, init: RequestInit = {}) =>
  api(path, {
    ...init,
    headers: {
      authorization: `Bearer ${sandbox.adminToken}`,
      ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(init.headers as Record<string, string> | undefined),
    },
  });
const put = (path: string, body: string, auth = true) =>
  api(path, {
    method: 'PUT',
    body,
    headers: { 'content-type': 'application/json', ...(auth ? { authorization: `Bearer ${token}` } : {}) },
  });

async function adminOrders(): Promise<StoredOrder[]> {
  const response = await admin('__sandbox/orders');
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
    const response = await admin('__sandbox/faults', { method: 'POST', body: JSON.stringify({ errorRate: 1 }) });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ...NO_FAULTS, errorRate: 1 });
    expect(sandbox.getFaults().errorRate).toBe(1);
    const failing = await api('api/v2/Product/search?searchTerm=para');
    expect(failing.status).toBe(500);
    expect(await failing.json()).toMatchObject({ error: 'Internal Server Error', status: 500 });

    const bad = await admin('__sandbox/faults', { method: 'POST', body: JSON.stringify({ errorRate: 2, typo: true }) });
    expect(bad.status).toBe(400);
    const envelope = (await bad.json()) as { details: Array<{ field: string }> };
    expect(envelope.details.map((d) => d.field)).toEqual(expect.arrayContaining(['errorRate', '(body)']));

    await admin('__sandbox/faults', { method: 'POST', body: JSON.stringify({ errorRate: 0 }) });
    expect((await api('api/v2/Product/search?searchTerm=para')).status).toBe(200);
  });

  it('GET /__sandbox/cpu reports the process CPU time so far, which only grows', async () => {
    const read = async () => ((await (await admin('__sandbox/cpu')).json()) as { cpuMicros: number }).cpuMicros;
    const first = await read();
    expect(first).toBeGreaterThan(0);
    for (let i = 0; i < 20; i += 1) await api('api/v2/Product/search?searchTerm=para');
    expect(await read()).toBeGreaterThan(first);
    expect((await admin('__sandbox/cpu', { method: 'POST', body: '{}' })).status).toBe(405);
  });

  it('admin routes keep working through an outage; API requests do not, and are counted', async () => {
    sandbox.setFaults({ outage: true });
    try {
      const before = sandbox.requestCount();
      await expect(api('api/v2/Product/search?searchTerm=para')).rejects.toThrow();
      expect(sandbox.requestCount()).toBe(before + 1);
      expect((await admin('__sandbox/faults')).status).toBe(200);
      await adminOrders();
      expect(sandbox.requestCount()).toBe(before + 1);
    } finally {
      sandbox.setFaults(NO_FAULTS);
    }
  });
});

describe('the admin routes are guarded', () => {
  it('are off unless asked for: 404 like any unknown path, with or without a token', async () => {
    const off = await startSandbox({ statusStepMs: 3_600_000 });
    try {
      expect(off.adminToken).toBeNull();
      for (const [path, init] of [
        ['__sandbox/orders', {}],
        ['__sandbox/faults', {}],
        [
          '__sandbox/faults',
          { method: 'POST', body: '{"outage":true}', headers: { 'content-type': 'application/json' } },
        ],
        ['__sandbox/cpu', { headers: { authorization: `Bearer ${sandbox.adminToken}` } }],
      ] as const) {
        const response = await fetch(new URL(path, off.apiUrl), init);
        expect(response.status).toBe(404);
        expect(await response.json()).toEqual({
          error: 'Not Found',
          status: 404,
          details: { message: `no endpoint /${path}` },
        });
      }
      expect(off.getFaults().outage).toBe(false);
    } finally {
      await off.close();
    }
  });

  it('a new token each launch: 43 base64url characters', async () => {
    const other = await startSandbox({ statusStepMs: 3_600_000, adminRoutes: true });
    try {
      expect(sandbox.adminToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(other.adminToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(other.adminToken).not.toBe(sandbox.adminToken);
    } finally {
      await other.close();
    }
  });

  it('401 without the token, with a wrong one, or with the access token of a client', async () => {
    const wrong = `${sandbox.adminToken!.slice(0, -1)}${sandbox.adminToken!.endsWith('A') ? 'B' : 'A'}`;
    const attempts: Array<Record<string, string>> = [
      {},
      { authorization: `Bearer ${wrong}` },
      { authorization: `Bearer ${token}` },
    ];
    for (const headers of attempts) {
      const response = await api('__sandbox/orders', { headers });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(await response.text()).not.toContain('rawBody');
    }
    const post = await api('__sandbox/faults', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ outage: true }),
    });
    expect(post.status).toBe(401);
    expect(sandbox.getFaults().outage).toBe(false);
  });

  it('415 for a POST that is not declared JSON (what a cross-site form or text/plain fetch sends)', async () => {
    for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data', null]) {
      const response = await api('__sandbox/faults', {
        method: 'POST',
        headers: {
          authorization: `Bearer ${sandbox.adminToken}`,
          ...(contentType ? { 'content-type': contentType } : {}),
        },
        body: JSON.stringify({ outage: true }),
      });
      expect(response.status).toBe(415);
    }
    expect(sandbox.getFaults().outage).toBe(false);
    const json = await admin('__sandbox/faults', {
      method: 'POST',
      headers: { 'content-type': 'Application/JSON; charset=utf-8' },
      body: JSON.stringify({ latencyMs: 0 }),
    });
    expect(json.status).toBe(200);
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
