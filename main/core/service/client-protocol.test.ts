import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../platform/logger.js';
import { sampleV1 } from '../../../test/support/sample-orders.js';
import { createOrderServiceClient, type TokenSource } from './client.js';

/**
 * Wire behaviour the sandbox never shows (a real deployment might): answers scripted per test by a tiny server
 * on 127.0.0.1, so each case is exact. The sandbox tests cover the service's own behaviour.
 */

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let server: Server;
let baseUrl: string;
let seen: Seen[] = [];
let answer: (res: ServerResponse, request: Seen) => void = (res) => res.end();

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      };
      seen.push(request);
      answer(res, request);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/prefix`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  seen = [];
});

const TOKEN = 'eyJ.secret-token-value.sig';
const tokens: TokenSource = { getAccessToken: () => Promise.resolve(TOKEN), refresh: () => Promise.resolve(false) };
const logLines: string[] = [];
const client = () =>
  createOrderServiceClient({
    apiBaseUrl: baseUrl,
    tokens,
    timeoutMs: 5000,
    userAgent: 'RxBatch/9.9.9',
    createWithClinicVersion: 'v1',
    logger: createLogger('service', (line) => logLines.push(line)),
  });

const json =
  (status: number, body: string, headers: Record<string, string> = {}) =>
  (res: ServerResponse) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(body);
  };

describe('requests', () => {
  it('keep the base URL prefix, send User-Agent and the bearer token, and JSON with dmdCode as a number', async () => {
    answer = json(200, '{"orderId":12}');
    const body = sampleV1({ dmdCode: '365895111000001107' });
    const outcome = await client().createWithClinic(body);
    expect(outcome.ok && outcome.value).toEqual({ orderId: 12 });
    const [request] = seen;
    expect(request).toMatchObject({ method: 'PUT', url: '/prefix/api/v1/Order/create-with-clinic' });
    expect(request!.headers['user-agent']).toBe('RxBatch/9.9.9');
    expect(request!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(request!.headers['content-type']).toMatch(/^application\/json/);
    expect(request!.body).toContain('"dmdCode":365895111000001107');
  });

  it('send product search without any Authorization header', async () => {
    answer = json(200, '[{"productId":1,"dmdCode":123456789012345678,"name":"X"}]');
    const outcome = await client().searchProducts('x y');
    expect(outcome.ok && outcome.value[0]?.dmdCode).toBe('123456789012345678');
    expect(seen[0]!.headers.authorization).toBeUndefined();
    expect(seen[0]!.headers['user-agent']).toBe('RxBatch/9.9.9');
    expect(seen[0]!.url).toBe('/prefix/api/v2/Product/search?searchTerm=x+y');
  });

  it('send HL7 as text/plain, verbatim', async () => {
    answer = json(200, '{"orderId":5}');
    const message = 'MSH|^~\\&|A|B|C|D|20250101||RDE^O11|1|P|2.5\rORC|NW|X1';
    expect((await client().createWithHl7(message)).ok).toBe(true);
    expect(seen[0]!.headers['content-type']).toMatch(/^text\/plain/);
    expect(seen[0]!.body).toBe(message);
  });
});

describe('answers', () => {
  it('a plain-text 400 becomes rejected with that text', async () => {
    answer = (res) => {
      res.writeHead(400, { 'content-type': 'text/plain' });
      res.end('Invalid prescriber');
    };
    const outcome = await client().status(7);
    expect(outcome.ok ? null : outcome.error).toEqual({
      kind: 'rejected',
      status: 400,
      message: 'Invalid prescriber',
      fields: [],
    });
  });

  it('a 2xx that is not the contract: in doubt for a create, retryable for a read', async () => {
    answer = json(200, '<html>maintenance</html>');
    const create = await client().createWithClinic(sampleV1());
    expect(create.ok ? null : create.error).toMatchObject({
      kind: 'in-doubt',
      reason: 'unreadable-response',
      status: 200,
    });
    answer = json(200, '{"unexpected":true}');
    const read = await client().courierPriceList();
    expect(read.ok ? null : read.error).toMatchObject({
      kind: 'retryable',
      reason: 'unreadable-response',
      status: 200,
    });
  });

  it('503 with an HTTP-date Retry-After is retryable/server with the delay', async () => {
    const at = new Date(Date.now() + 120_000).toUTCString();
    answer = json(503, '{"error":"down","status":503}', { 'retry-after': at });
    const outcome = await client().status(1);
    const error = outcome.ok ? null : outcome.error;
    expect(error).toMatchObject({ kind: 'retryable', reason: 'server', status: 503 });
    const retryAfterMs = error && 'retryAfterMs' in error ? (error.retryAfterMs ?? 0) : 0;
    expect(retryAfterMs).toBeGreaterThan(100_000);
    expect(retryAfterMs).toBeLessThanOrEqual(120_000);
  });

  it('a connection lost in the middle of the answer: a read is retryable, a cancel in doubt', async () => {
    answer = (res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"clinicOrderId":');
      setImmediate(() => res.socket?.destroy());
    };
    const read = await client().status(3);
    expect(read.ok ? null : read.error).toMatchObject({ kind: 'retryable', reason: 'network' });
    const cancel = await client().cancel({ orderId: 3, clinicCode: 'C', cancelReason: 'r' });
    expect(cancel.ok ? null : cancel.error).toMatchObject({ kind: 'in-doubt', reason: 'reset' });
  });

  it("a cancel answered 200 with success false is the service's refusal, with its words, not a cancel done", async () => {
    answer = json(200, '{"success":false,"message":"Order cannot be cancelled at this stage"}');
    const refused = await client().cancel({ orderId: 3, clinicCode: 'C', cancelReason: 'r' });
    expect(refused.ok ? null : refused.error).toEqual({
      kind: 'rejected',
      status: 200,
      message: 'the service refused the cancel: Order cannot be cancelled at this stage',
      fields: [],
    });
    answer = json(200, '{"ok":false}');
    const bare = await client().cancel({ orderId: 3, clinicCode: 'C', cancelReason: 'r' });
    expect(bare.ok ? null : bare.error).toMatchObject({ kind: 'rejected', message: 'the service refused the cancel' });
    // 202 or 204 with no body: taken (its status confirms it later), not an unreadable answer to send again on.
    for (const status of [200, 202, 204]) {
      answer = (res) => {
        res.writeHead(status);
        res.end();
      };
      const accepted = await client().cancel({ orderId: 3, clinicCode: 'C', cancelReason: 'r' });
      expect(accepted).toMatchObject({ ok: true, value: { pharmacyOrderId: null } });
    }
    // A record, with or without success true, is the cancel taken.
    answer = json(200, '{"success":true,"pharmacyOrderId":3,"orderStatus":"Cancelled"}');
    const done = await client().cancel({ orderId: 3, clinicCode: 'C', cancelReason: 'r' });
    expect(done.ok).toBe(true);
  });

  it("a create answered 2xx with success false and no order id is the service's refusal, not in doubt", async () => {
    answer = json(200, '{"success":false,"message":"Clinic C is not enabled for ordering"}');
    const refused = await client().createWithClinic(sampleV1());
    expect(refused.ok ? null : refused.error).toEqual({
      kind: 'rejected',
      status: 200,
      message: 'the service refused the order: Clinic C is not enabled for ordering',
      fields: [],
    });
    answer = json(201, '{"succeeded":false}');
    const hl7 = await client().createWithHl7('MSH|^~\\&|A|B|C|D|20260101||RDE^O11|1|P|2.5\r');
    expect(hl7.ok ? null : hl7.error).toMatchObject({ kind: 'rejected', message: 'the service refused the order' });
    // Saying both (an order id with success false), the order may exist: in doubt, to be looked up.
    answer = json(200, '{"success":false,"orderId":12}');
    const both = await client().createWithClinic(sampleV1());
    expect(both.ok ? null : both.error).toMatchObject({ kind: 'in-doubt', reason: 'unreadable-response' });
  });

  it('log one line per failed call with operation, status and latency, never the token or patient data', async () => {
    logLines.length = 0;
    answer = json(400, '{"error":"Bad Request","message":"nope"}');
    const body = sampleV1({ surname: 'Verysecretsurname' });
    await client().createWithClinic(body);
    expect(logLines).toHaveLength(1);
    const line = JSON.parse(logLines[0]!) as Record<string, unknown>;
    expect(line).toMatchObject({ operation: 'createWithClinic', status: 400, attempts: 1, outcome: 'rejected' });
    expect(typeof line.latencyMs).toBe('number');
    expect(logLines[0]).not.toContain(TOKEN);
    expect(logLines[0]).not.toContain('Verysecretsurname');
    expect(logLines[0]).not.toContain(body.prescription.clinicOrderId);
    // A create that succeeds is in the submission log (the outbox records every call), not in the app's log.
    answer = json(200, '{"orderId":99}');
    await client().createWithClinic(sampleV1({ surname: 'Verysecretsurname' }));
    expect(logLines).toHaveLength(1);
  });
});
