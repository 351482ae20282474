import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceError } from '../../../shared/errors.js';
import { createOrderServiceClient } from './client.js';
import { saysNoSuchOrder } from './no-such-order.js';
import {
  answerWith,
  onConnect,
  startHostileServer,
  type HostileServer,
  type Script,
} from './testing/hostile-server.js';

/**
 * Which refused lookups say "no such order", on the errors the real client makes of a loopback service's answers
 * (a status lookup, as the outbox's reconcile, the poller and the detail view's refresh send it).
 */

let server: HostileServer;
beforeAll(async () => {
  server = await startHostileServer();
});
afterAll(async () => {
  await server.close();
});

const JSON_TYPE = { 'content-type': 'application/json' };
const envelope = (status: number, error: string, details?: unknown) =>
  answerWith(status, JSON.stringify({ error, status, ...(details ? { details } : {}) }), JSON_TYPE);
const NGINX_404 =
  '<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n<center><h1>404 Not Found</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';

async function lookupError(script: Script): Promise<ServiceError> {
  server.answer(script);
  const client = createOrderServiceClient({
    apiBaseUrl: server.url,
    // A renewal that succeeds: a plain 403 is asked again with it, and its second answer is the service's refusal.
    tokens: { getAccessToken: () => Promise.resolve('token'), refresh: () => Promise.resolve(true) },
    timeoutMs: 5_000,
    userAgent: 'RxBatch/no-such-order-test',
    createWithClinicVersion: 'v1',
  });
  const outcome = await client.statusWithClinicCode({ clinicCode: 'CLINIC-A', orderId: 9001 });
  if (outcome.ok) throw new Error(`expected a failure, got ${JSON.stringify(outcome.value)}`);
  return outcome.error;
}

describe('a refused lookup that says the service has no such order', () => {
  it.each<[string, Script]>([
    ['a 404 in the service’s envelope', envelope(404, 'Not Found')],
    [
      'a 404 naming a field',
      answerWith(404, JSON.stringify({ title: 'Not Found', errors: { orderId: ['not in this clinic'] } }), JSON_TYPE),
    ],
    ['a 404 in words about the order', answerWith(404, 'Order 9001 was not found', { 'content-type': 'text/plain' })],
    ['a 400 saying the order is not found', envelope(400, 'Bad Request', { message: 'Order not found' })],
    ['a 400 "unknown order id"', envelope(400, 'Unknown order id')],
  ])('%s', async (_name, script) => {
    const error = await lookupError(script);
    expect(error.kind).toBe('rejected');
    expect(saysNoSuchOrder(error)).toBe(true);
  });
});

describe('a failed lookup that says nothing about the order', () => {
  it.each<[string, Script, Partial<ServiceError>]>([
    // Refusals, as the client makes them, which are still not the service's word on this order.
    [
      'a proxy’s 404 page',
      answerWith(404, NGINX_404, { 'content-type': 'text/html' }),
      {
        kind: 'rejected',
        status: 404,
        message: 'the service answered with a web page instead of its own error: "404 Not Found"',
      },
    ],
    ['a bare "Not Found"', answerWith(404, 'Not Found', { 'content-type': 'text/plain' }), { kind: 'rejected' }],
    [
      'a 400 about the clinic code',
      envelope(400, 'Invalid clinic', { field: 'clinicCode', message: 'unknown clinic code' }),
      { kind: 'rejected', status: 400 },
    ],
    // "Order … not found" only when the two are put together: the envelope's words and a field's are read apart,
    // and another thing named between them (the clinic code) is what was not found.
    [
      'a 400 about the request, its field the clinic code "not found"',
      envelope(400, 'Order status request invalid', { field: 'clinicCode', message: 'Clinic not found' }),
      { kind: 'rejected', status: 400 },
    ],
    [
      'a 400 in words about the clinic code',
      answerWith(400, 'Order status lookup failed: clinicCode CLINIC-A not found', { 'content-type': 'text/plain' }),
      { kind: 'rejected', status: 400 },
    ],
    [
      'a 400 "order lookup: clinic not found"',
      envelope(400, 'Order lookup: clinic not found'),
      { kind: 'rejected', status: 400 },
    ],
    [
      'a 403 in words about the order',
      envelope(403, 'Order not found for this user'),
      { kind: 'rejected', status: 403 },
    ],
    // Not refusals at all: the words do not count when the service failed or did not answer.
    ['a 5xx', envelope(503, 'Order not found'), { kind: 'retryable', reason: 'server', status: 503 }],
    ['a reset connection', onConnect((socket) => socket.destroy()), { kind: 'retryable', reason: 'network' }],
  ])('%s', async (_name, script, expected) => {
    const error = await lookupError(script);
    expect(error).toMatchObject(expected);
    expect(saysNoSuchOrder(error)).toBe(false);
  });

  it('nor does a service that cannot be reached', async () => {
    const closed = await startHostileServer();
    const url = closed.url;
    await closed.close();
    const client = createOrderServiceClient({
      apiBaseUrl: url,
      tokens: { getAccessToken: () => Promise.resolve('token'), refresh: () => Promise.resolve(false) },
      timeoutMs: 5_000,
      userAgent: 'RxBatch/no-such-order-test',
      createWithClinicVersion: 'v1',
    });
    const outcome = await client.statusWithClinicCode({ clinicCode: 'CLINIC-A', orderId: 9001 });
    expect(outcome).toMatchObject({ ok: false, error: { kind: 'retryable', reason: 'network' } });
    expect(!outcome.ok && saysNoSuchOrder(outcome.error)).toBe(false);
  });
});

describe('a refusal built to make the "no such order" words backtrack', () => {
  // The envelope's field messages were kept whole (the rest is cut to 500 characters): "order " repeated in one,
  // which the words' pattern tries from every "order" to the end, held the core's loop 258 s for 600 KB, on every
  // lookup (the outbox's reconcile, the poller, a refresh) of a service answering so.
  it('reads a field message of "order" repeated at once, as a cut message', async () => {
    const error = await lookupError(
      envelope(400, 'Bad Request', { field: 'orderId', message: 'order '.repeat(100_000) }),
    );
    if (error.kind !== 'rejected') throw new Error(`expected a refusal, got ${error.kind}`);
    expect(error).toMatchObject({ status: 400, fields: [{ field: 'orderId' }] });
    expect(error.fields[0]?.message).toHaveLength(500);
    const started = performance.now();
    expect(saysNoSuchOrder(error)).toBe(false);
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});
