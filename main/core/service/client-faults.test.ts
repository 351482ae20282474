import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceError } from '../../../shared/errors.js';
import { NO_FAULTS } from '../../../sandbox/faults.js';
import { startSandbox, type RunningSandbox } from '../../../sandbox/index.js';
import { sampleV1 } from '../../../test/support/sample-orders.js';
import { sandboxServiceClient } from '../../../test/support/sandbox-client.js';
import type { CallOutcome, OrderServiceClient } from './client.js';

/** Each sandbox fault switch, and the error kind the client turns it into. */

function errorOf(outcome: CallOutcome<unknown>): ServiceError {
  if (outcome.ok) throw new Error(`expected a failure, got ${JSON.stringify(outcome.value)}`);
  return outcome.error;
}

let sandbox: RunningSandbox;
let client: OrderServiceClient;

const makeClient = (apiBaseUrl: string, timeoutMs = 10_000) => sandboxServiceClient(sandbox, { apiBaseUrl, timeoutMs });

const storedIds = () => sandbox.listOrders().map((o) => o.clinicOrderId);

beforeAll(async () => {
  sandbox = await startSandbox({ statusStepMs: 3_600_000 });
  client = makeClient(sandbox.apiUrl);
});

afterEach(() => {
  sandbox.setFaults(NO_FAULTS);
});

afterAll(async () => {
  await sandbox?.close();
});

describe('fault switches as the client sees them', () => {
  it('errorRate 1 → a create is in doubt/server (500: it cannot tell), a read retryable/server', async () => {
    sandbox.setFaults({ errorRate: 1 });
    const body = sampleV1();
    // Here nothing was stored, but a 500 does not say so: the outbox looks it up before sending again.
    expect(errorOf(await client.createWithClinic(body))).toMatchObject({
      kind: 'in-doubt',
      reason: 'server',
      status: 500,
    });
    expect(errorOf(await client.courierPriceList())).toMatchObject({
      kind: 'retryable',
      reason: 'server',
      status: 500,
    });
    expect(storedIds()).not.toContain(body.prescription.clinicOrderId);
  });

  it('rateLimitRate 1 → retryable/rate-limited with Retry-After in ms', async () => {
    sandbox.setFaults({ rateLimitRate: 1, retryAfterSeconds: 7 });
    const outcome = await client.status(100_001);
    expect(errorOf(outcome)).toMatchObject({
      kind: 'retryable',
      reason: 'rate-limited',
      status: 429,
      retryAfterMs: 7000,
    });
  });

  it('resetRate 1 → a create is in doubt, and was not stored; a GET is retryable', async () => {
    sandbox.setFaults({ resetRate: 1 });
    const body = sampleV1();
    const outcome = await client.createWithClinic(body);
    expect(errorOf(outcome)).toMatchObject({ kind: 'in-doubt', reason: 'reset' });
    expect(outcome.meta.status).toBeUndefined();
    expect(errorOf(await client.searchProducts('paracetamol'))).toMatchObject({ kind: 'retryable', reason: 'network' });
    sandbox.setFaults(NO_FAULTS);
    expect(storedIds()).not.toContain(body.prescription.clinicOrderId);
  });

  it('commitThenDropRate 1 → a create is in doubt, and the order exists afterwards', async () => {
    sandbox.setFaults({ commitThenDropRate: 1 });
    const body = sampleV1({ clinicCode: 'CLINIC-DROP' });
    expect(errorOf(await client.createWithClinic(body))).toMatchObject({ kind: 'in-doubt', reason: 'reset' });
    const order = sandbox.listOrders().find((o) => o.clinicOrderId === body.prescription.clinicOrderId);
    expect(order?.status).toBe('Waiting Payment Success');

    // A cancel is non-idempotent too: in doubt, yet done.
    const cancel = await client.cancel({
      orderId: order!.pharmacyOrderId,
      clinicCode: 'CLINIC-DROP',
      cancelReason: 'test',
    });
    expect(errorOf(cancel)).toMatchObject({ kind: 'in-doubt', reason: 'reset' });
    expect(sandbox.listOrders().find((o) => o.pharmacyOrderId === order!.pharmacyOrderId)?.status).toBe('Cancelled');

    // Reads are not affected by this switch.
    const status = await client.status(order!.pharmacyOrderId);
    expect(status.ok && status.value.orderStatus).toBe('Cancelled');
  });

  it.each([500, 502, 503, 504])(
    'commitThenStatus %i → a create and a cancel are in doubt/server with the status, and took effect',
    async (status) => {
      sandbox.setFaults({ commitThenStatusRate: 1, commitThenStatus: status });
      const body = sampleV1({ clinicCode: 'CLINIC-5XX' });
      expect(errorOf(await client.createWithClinic(body))).toMatchObject({
        kind: 'in-doubt',
        reason: 'server',
        status,
      });
      const order = sandbox.listOrders().find((o) => o.clinicOrderId === body.prescription.clinicOrderId);
      expect(order?.status).toBe('Waiting Payment Success');
      const cancel = await client.cancel({
        orderId: order!.pharmacyOrderId,
        clinicCode: 'CLINIC-5XX',
        cancelReason: 'x',
      });
      expect(errorOf(cancel)).toMatchObject({ kind: 'in-doubt', reason: 'server', status });
      expect(sandbox.listOrders().find((o) => o.pharmacyOrderId === order!.pharmacyOrderId)?.status).toBe('Cancelled');
    },
  );

  it('a 503 with Retry-After to a create is in doubt and keeps the wait; a 429 and a 400 say nothing was done', async () => {
    let answer = { status: 503, headers: { 'retry-after': '3' } as Record<string, string> };
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
        res.end(JSON.stringify({ error: 'nope', status: answer.status }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const direct = makeClient(`http://127.0.0.1:${port}/`);
      expect(errorOf(await direct.createWithClinic(sampleV1()))).toMatchObject({
        kind: 'in-doubt',
        reason: 'server',
        status: 503,
        retryAfterMs: 3000,
      });
      expect(errorOf(await direct.status(1))).toMatchObject({
        kind: 'retryable',
        reason: 'server',
        retryAfterMs: 3000,
      });
      answer = { status: 408, headers: {} };
      expect(errorOf(await direct.createWithClinic(sampleV1()))).toMatchObject({ kind: 'in-doubt', status: 408 });
      answer = { status: 429, headers: { 'retry-after': '1' } };
      expect(errorOf(await direct.createWithClinic(sampleV1()))).toMatchObject({
        kind: 'retryable',
        reason: 'rate-limited',
      });
      answer = { status: 400, headers: {} };
      expect(errorOf(await direct.createWithClinic(sampleV1()))).toMatchObject({ kind: 'rejected', status: 400 });
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('latency beyond the timeout → a create is in doubt (timeout); a GET is retryable', async () => {
    sandbox.setFaults({ latencyMs: 1500 });
    const impatient = makeClient(sandbox.apiUrl, 300);
    expect(errorOf(await impatient.createWithClinic(sampleV1()))).toMatchObject({
      kind: 'in-doubt',
      reason: 'timeout',
    });
    expect(errorOf(await impatient.courierPriceList())).toMatchObject({ kind: 'retryable', reason: 'network' });
  });

  it('outage → retryable/network for reads; a create sent into it is in doubt and not stored', async () => {
    sandbox.setFaults({ outage: true });
    expect(errorOf(await client.status(100_001))).toMatchObject({ kind: 'retryable', reason: 'network' });
    expect(errorOf(await client.searchProducts('para'))).toMatchObject({ kind: 'retryable', reason: 'network' });
    const body = sampleV1();
    expect(errorOf(await client.createWithClinic(body))).toMatchObject({ kind: 'in-doubt' });
    sandbox.setFaults({ outage: false });
    expect(storedIds()).not.toContain(body.prescription.clinicOrderId);
    expect((await client.searchProducts('para')).ok).toBe(true);
  });

  it('a closed port → retryable/network, even for a create (nothing was sent)', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));

    const outcome = await makeClient(`http://127.0.0.1:${port}/`).createWithClinic(sampleV1());
    expect(errorOf(outcome)).toMatchObject({ kind: 'retryable', reason: 'network' });
    expect(errorOf(outcome).message).toMatch(/ECONNREFUSED/);
    expect(outcome.meta.attempts).toBe(1);
  });
});
