import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ServiceError } from '../../../shared/errors.js';
import { sampleV1 } from '../../../test/support/sample-orders.js';
import { createLogger } from '../platform/logger.js';
import { createOrderServiceClient, type CallOutcome, type OrderServiceClient, type TokenSource } from './client.js';
import { MAX_RETRY_AFTER_MS } from './error-mapping.js';
import { MAX_RESPONSE_BYTES } from './http-exchange.js';
import { answerWith, onConnect, rawAnswer, startHostileServer, type HostileServer } from './testing/hostile-server.js';

/**
 * The client against a hostile Order Service on loopback: one fault class at a time, each with the kind it must
 * end in (README, "Order Service client"): a create whose outcome is unknown is `in-doubt`, never `rejected` and
 * never `retryable`; a read is simply `retryable`; the token goes nowhere but the API's origin; memory and time are
 * bounded; and no message or log line holds the token.
 */

const TOKEN = 'eyJhbGciOiJSUzI1NiJ9.hostile-test-token.c2ln';
let refreshes = 0;
const tokens: TokenSource = {
  getAccessToken: () => Promise.resolve(TOKEN),
  refresh: () => {
    refreshes += 1;
    return Promise.resolve(true);
  },
};
const logLines: string[] = [];

let server: HostileServer;
let other: HostileServer;

beforeAll(async () => {
  server = await startHostileServer();
  other = await startHostileServer();
});
afterAll(async () => {
  await server.close();
  await other.close();
});
beforeEach(() => {
  server.requests.length = 0;
  other.requests.length = 0;
  refreshes = 0;
  logLines.length = 0;
});

const client = (timeoutMs = 5_000, base = server.url): OrderServiceClient =>
  createOrderServiceClient({
    apiBaseUrl: base,
    tokens,
    timeoutMs,
    userAgent: 'RxBatch/hostile-test',
    createWithClinicVersion: 'v1',
    logger: createLogger('service', (line) => logLines.push(line)),
  });

function errorOf(outcome: CallOutcome<unknown>): ServiceError {
  if (outcome.ok) throw new Error(`expected a failure, got ${JSON.stringify(outcome.value)}`);
  // Whatever went wrong, neither the message nor a log line carries the token.
  expect(outcome.error.message).not.toContain(TOKEN);
  expect(outcome.error.message.length).toBeGreaterThan(0);
  for (const line of logLines) expect(line).not.toContain(TOKEN);
  return outcome.error;
}

function valueOf<T>(outcome: CallOutcome<T>): T {
  if (!outcome.ok) throw new Error(`expected success, got ${JSON.stringify(outcome.error)}`);
  return outcome.value;
}

const create = (timeoutMs?: number) => client(timeoutMs).createWithClinic(sampleV1());
const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  answerWith(status, typeof body === 'string' ? body : JSON.stringify(body), {
    'content-type': 'application/json',
    ...headers,
  });

describe('Retry-After', () => {
  it('as delay-seconds and as an HTTP date (all three forms) is the wait in ms', async () => {
    server.answer(json(429, { error: 'slow down', status: 429 }, { 'retry-after': '7' }));
    expect(errorOf(await create())).toMatchObject({ kind: 'retryable', reason: 'rate-limited', retryAfterMs: 7000 });
    const at = new Date(Math.ceil(Date.now() / 1000) * 1000 + 90_000);
    const days = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
    const [, dd, mon, yyyy, time] = at.toUTCString().split(' ') as [string, string, string, string, string];
    const forms = [
      at.toUTCString(),
      // RFC 850 and asctime, which RFC 9110 says a recipient must read.
      `${days[at.getUTCDay()]}, ${dd}-${mon}-${yyyy.slice(2)} ${time} GMT`,
      `${days[at.getUTCDay()]!.slice(0, 3)} ${mon} ${String(at.getUTCDate()).padStart(2, ' ')} ${time} ${yyyy}`,
    ];
    for (const form of forms) {
      server.answer(json(429, { error: 'slow down', status: 429 }, { 'retry-after': form }));
      const error = errorOf(await create());
      expect(error, form).toMatchObject({ kind: 'retryable', reason: 'rate-limited' });
      const wait = 'retryAfterMs' in error ? (error.retryAfterMs ?? 0) : 0;
      expect(wait, form).toBeGreaterThan(80_000);
      expect(wait, form).toBeLessThanOrEqual(91_000);
    }
  });

  it("a date is read against the answer's own Date, so a service clock ahead or behind ours still means 30 s", async () => {
    for (const skewMs of [-2 * 3600_000, 20 * 60_000]) {
      const served = Math.floor((Date.now() + skewMs) / 1000) * 1000;
      const headers = {
        date: new Date(served).toUTCString(),
        'retry-after': new Date(served + 30_000).toUTCString(),
      };
      server.answer(json(429, { error: 'slow down', status: 429 }, headers));
      expect(errorOf(await create()), String(skewMs)).toMatchObject({ reason: 'rate-limited', retryAfterMs: 30_000 });
    }
  });

  it('429 without Retry-After is rate-limited with no wait of its own; 503 with it keeps the wait and is in doubt', async () => {
    server.answer(json(429, { error: 'slow down', status: 429 }));
    const bare = errorOf(await create());
    expect(bare).toMatchObject({ kind: 'retryable', reason: 'rate-limited', status: 429 });
    expect('retryAfterMs' in bare ? bare.retryAfterMs : undefined).toBeUndefined();
    server.answer(json(503, 'Service Unavailable', { 'retry-after': '30' }));
    expect(errorOf(await create())).toMatchObject({
      kind: 'in-doubt',
      reason: 'server',
      status: 503,
      retryAfterMs: 30_000,
    });
  });
  it('a huge value waits at most an hour; a negative, fractional, ISO or garbled one is ignored', async () => {
    for (const huge of ['99999999999999999999', '9'.repeat(400), new Date(Date.now() + 5 * 86_400_000).toUTCString()]) {
      server.answer(json(429, { error: 'slow down', status: 429 }, { 'retry-after': huge }));
      expect(errorOf(await create()), huge.slice(0, 30)).toMatchObject({
        kind: 'retryable',
        reason: 'rate-limited',
        retryAfterMs: MAX_RETRY_AFTER_MS,
      });
    }
    for (const garbled of [
      '-5',
      '1.5',
      '1e3',
      'soon',
      '12abc',
      'Mon 2099',
      '2099-01-01T00:00:00Z',
      'Sun, 31 Feb 2099 00:00:00 GMT',
    ]) {
      server.answer(json(503, { error: 'down', status: 503 }, { 'retry-after': garbled }));
      const error = errorOf(await create());
      expect(error, garbled).toMatchObject({ kind: 'in-doubt', reason: 'server', status: 503 });
      expect('retryAfterMs' in error ? error.retryAfterMs : undefined, garbled).toBeUndefined();
    }
  });
});

describe('redirects', () => {
  it('are never followed: the other origin gets nothing (so never the token), and neither does the same origin', async () => {
    other.answer(json(200, { orderId: 1 }));
    for (const status of [301, 302, 303, 307, 308]) {
      server.answer(answerWith(status, '', { location: `${other.url}api/v1/Order/create-with-clinic` }));
      const read = errorOf(await client().status(5));
      expect(read, `read ${status}`).toMatchObject({ kind: 'rejected', status });
      expect(read.message).toMatch(/redirected .*check the API base URL/);
      server.answer(answerWith(status, '', { location: '/elsewhere' }));
      errorOf(await client().courierPriceList());
    }
    expect(other.requests).toEqual([]);
    expect(server.requests.map((r) => r.target).filter((t) => t.includes('elsewhere'))).toEqual([]);
  });

  it('307/308 to a create say it was not applied (repeat it elsewhere): the address is wrong, so it waits', async () => {
    for (const status of [307, 308]) {
      server.answer(answerWith(status, '', { location: `${other.url}x` }));
      // About the address, not the order: retried once the settings are put right (the breaker stops the rest),
      // never a rejection of each order of the batch.
      expect(errorOf(await create()), String(status)).toMatchObject({ kind: 'retryable', status, settings: true });
    }
    expect(other.requests).toEqual([]);
  });

  it('any other 3xx to a create or a cancel may come after the write (post/redirect/get): in doubt', async () => {
    for (const status of [300, 301, 302, 303, 304]) {
      server.answer(answerWith(status, '', { location: '/api/v2/Order/status?orderId=9' }));
      const error = errorOf(await create());
      expect(error, String(status)).toMatchObject({ kind: 'in-doubt', reason: 'unreadable-response', status });
      expect(error.message).toMatch(/redirected .*outcome is unknown/);
      const cancel = await client().cancel({ orderId: 9, clinicCode: 'C', cancelReason: 'r' });
      expect(errorOf(cancel), String(status)).toMatchObject({ kind: 'in-doubt', status });
    }
    expect(other.requests).toEqual([]);
  });

  it('a Location too long for a message is cut short', async () => {
    server.answer(answerWith(302, '', { location: `https://elsewhere.example/${'a'.repeat(5_000)}` }));
    const error = errorOf(await client().status(1));
    expect(error.message.length).toBeLessThan(400);
    expect(error.message).toMatch(
      /^the service redirected to https:\/\/elsewhere\.example\/a+…: check the API base URL$/,
    );
  });
});

describe('informational and unusual success answers', () => {
  it('a 100 Continue or 103 Early Hints before the answer is skipped', async () => {
    for (const info of ['HTTP/1.1 100 Continue\r\n\r\n', 'HTTP/1.1 103 Early Hints\r\nlink: </x>\r\n\r\n']) {
      server.answer((socket) => {
        socket.write(info);
        setTimeout(() => socket.end(rawAnswer(201, '{"orderId":41}', { 'content-type': 'application/json' })), 20);
      });
      expect(valueOf(await create())).toEqual({ orderId: 41 });
    }
  });

  it('an unasked-for 101 Switching Protocols ends at once as unreadable, not at the deadline', async () => {
    server.answer((socket) =>
      socket.end('HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: upgrade\r\n\r\n{"orderId":1}'),
    );
    const started = performance.now();
    const error = errorOf(await create(3_000));
    expect(error).toMatchObject({ kind: 'in-doubt', reason: 'unreadable-response', status: 101 });
    expect(error.message).toMatch(/switch protocols/);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(errorOf(await client(3_000).status(1))).toMatchObject({ kind: 'retryable', reason: 'unreadable-response' });
  });

  it('201 and 200 both create; JSON sent as text/plain is still read', async () => {
    server.answer(json(201, { orderId: 42 }));
    expect(valueOf(await create())).toEqual({ orderId: 42 });
    server.answer(answerWith(200, '{"orderId":43}', { 'content-type': 'text/plain' }));
    expect(valueOf(await create())).toEqual({ orderId: 43 });
  });

  it('an order id given as its digits in a string is the id; a longer or padded one is not (in doubt, looked up)', async () => {
    server.answer(json(201, { orderId: '4711' }));
    expect(valueOf(await create())).toEqual({ orderId: 4711 });
    for (const orderId of ['12345678901234567890', ' 12', '12a', '0', '']) {
      server.answer(json(201, { orderId }));
      expect(errorOf(await create()), orderId).toMatchObject({ kind: 'in-doubt', reason: 'unreadable-response' });
    }
  });

  it('JSON behind a UTF-8 byte order mark (as .NET writes it) is read, for a create, a read and an error', async () => {
    const bom = (text: string) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]);
    server.answer(answerWith(200, bom('{"orderId":44}'), { 'content-type': 'application/json; charset=utf-8' }));
    expect(valueOf(await create())).toEqual({ orderId: 44 });
    server.answer(answerWith(200, bom('{"orderStatus":"Cancelled","pharmacyOrderId":"44"}')));
    expect(valueOf(await client().status(44))).toMatchObject({ orderStatus: 'Cancelled', pharmacyOrderId: '44' });
    server.answer(answerWith(400, bom('{"error":"Invalid courier","status":400}')));
    expect(errorOf(await create())).toMatchObject({ kind: 'rejected', message: 'Invalid courier' });
  });

  it('an empty answer and one giving its id twice say so, not that the answer is not JSON', async () => {
    server.answer(answerWith(200, ''));
    expect(errorOf(await create()).message).toBe('the answer was empty: the outcome is unknown');
    server.answer(answerWith(200, ' \r\n'));
    // A list read (a read of one order answered so has no such order: one-order-nothing.test.ts).
    expect(errorOf(await client().statusWithClinicCode({ clinicCode: 'C', orderId: 4 })).message).toBe(
      'the answer was empty',
    );
    server.answer(answerWith(201, '{"orderId":4711,"orderId":4712}', { 'content-type': 'application/json' }));
    expect(errorOf(await create())).toMatchObject({
      kind: 'in-doubt',
      message: 'the answer gives "orderId" twice, so which one holds is not known: the outcome is unknown',
    });
    server.answer(answerWith(200, '<html><body>Welcome</body></html>', { 'content-type': 'text/html' }));
    expect(errorOf(await create()).message).toBe(
      'the service answered with a web page instead of its answer: the outcome is unknown',
    );
    // A firewall's 200 block page says what stopped the request.
    server.answer(answerWith(200, '<html><head><title>Request Rejected</title></head></html>'));
    expect(errorOf(await create()).message).toBe(
      'the service answered with a web page instead of its answer: "Request Rejected": the outcome is unknown',
    );
    server.answer(answerWith(200, 'Welcome', { 'content-type': 'text/plain' }));
    expect(errorOf(await create()).message).toBe('the answer is not JSON: the outcome is unknown');
  });

  it("the service's error envelope in a 200 is read as the status it names, with the token scrubbed", async () => {
    server.answer(
      json(200, { error: 'Invalid courier', status: 400, details: { field: 'courierCode', message: 'x' } }),
    );
    expect(errorOf(await create())).toMatchObject({
      kind: 'rejected',
      status: 400,
      message: 'Invalid courier: x (written into a 200 answer)',
      fields: [{ field: 'courierCode', message: 'x' }],
    });
    server.answer(json(200, { error: `Order not found for ${TOKEN}`, status: 404 }));
    expect(errorOf(await client().statusWithClinicCode({ clinicCode: 'C', clinicOrderId: 'A' }))).toMatchObject({
      kind: 'rejected',
      status: 404,
      message: 'Order not found for [token] (written into a 200 answer)',
    });
    // A failure it names leaves a create in doubt, as the status line would.
    server.answer(json(200, { error: 'Internal error', status: 500 }));
    expect(errorOf(await create())).toMatchObject({ kind: 'in-doubt', reason: 'server', status: 500 });
    // A status record with an error note of its own is still the record.
    server.answer(
      json(200, { pharmacyOrderId: '7', orderStatus: 'Payment Failed', error: 'Card declined', status: 402 }),
    );
    expect(valueOf(await client().status(7))).toMatchObject({ pharmacyOrderId: '7', orderStatus: 'Payment Failed' });
    // A token matter is the status line's (it decides the renewal); an order id beside it says the order may exist.
    for (const body of [
      { error: 'Unauthorized', status: 401 },
      { error: 'Forbidden', status: 403 },
      { orderId: 7, error: 'Duplicate', status: 400 },
    ]) {
      server.answer(json(200, body));
      const outcome = await create();
      expect(outcome.ok ? 'ok' : outcome.error.kind, JSON.stringify(body)).not.toBe('rejected');
    }
  });

  it("keys in another case are read as the contract's; two spellings of one key are not guessed between", async () => {
    server.answer(json(201, { OrderId: 45 }));
    expect(valueOf(await create())).toEqual({ orderId: 45 });
    server.answer(json(200, [{ ClinicOrderId: 'A-1', PharmacyOrderId: '45', OrderStatus: 'CANCELLED' }]));
    expect(valueOf(await client().statusWithClinicCode({ clinicCode: 'C', clinicOrderId: 'A-1' }))).toEqual([
      expect.objectContaining({ clinicOrderId: 'A-1', pharmacyOrderId: '45', orderStatus: 'Cancelled' }),
    ]);
    // A success about another order is still seen as one, in whatever case it names it.
    server.answer(json(201, { OrderId: 46, ClinicOrderId: 'SOMEONE-ELSE' }));
    expect(errorOf(await create())).toMatchObject({ kind: 'in-doubt', reason: 'unreadable-response' });
    server.answer(json(201, { OrderId: 47, ORDERID: 48 }));
    expect(errorOf(await create())).toMatchObject({ kind: 'in-doubt', reason: 'unreadable-response' });
  });

  it.each([
    ['204 with no body', answerWith(204, '')],
    ['200 with an empty body', answerWith(200, '')],
    ['200 with HTML', answerWith(200, '<html><body>Welcome</body></html>', { 'content-type': 'text/html' })],
    ['200 with truncated JSON', answerWith(200, '{"orderId":', { 'content-type': 'application/json' })],
    ['200 with a string id', json(200, { orderId: 'abc' })],
    ['201 with an id of 21 digits', answerWith(201, '{"orderId":123456789012345678901}')],
    ['201 with a fractional id', answerWith(201, '{"orderId":12.5}')],
    ['201 with a status record instead', json(201, { pharmacyOrderId: '12', orderStatus: 'Waiting Clinical Check' })],
  ])('%s to a create is in doubt (it may exist); to a read, retryable', async (_, script) => {
    server.answer(script);
    expect(errorOf(await create())).toMatchObject({ kind: 'in-doubt', reason: 'unreadable-response' });
    expect(errorOf(await client().courierPriceList())).toMatchObject({
      kind: 'retryable',
      reason: 'unreadable-response',
    });
  });

  it('204 No Content to a lookup of status records lists nothing; an empty 200 is still unreadable', async () => {
    const lookup = () => client().statusWithClinicCode({ clinicCode: 'C', clinicOrderId: 'A-1' });
    server.answer(answerWith(204, ''));
    expect(valueOf(await lookup())).toEqual([]);
    expect(valueOf(await client().statusByDateRange({ startDate: '2026-01-01', endDate: '2026-01-03' }))).toEqual([]);
    server.answer(answerWith(200, ''));
    expect(errorOf(await lookup())).toMatchObject({ kind: 'retryable', reason: 'unreadable-response' });
  });
});

describe('a success about another order', () => {
  it('a create answered with another clinic order id or clinic is in doubt (looked up), not created with that id', async () => {
    const order = sampleV1();
    const sent = order.prescription.clinicOrderId;
    server.answer(json(201, { orderId: 77, clinicOrderId: 'SOMEONE-ELSES-1' }));
    const other = errorOf(await client().createWithClinic(order));
    expect(other).toMatchObject({ kind: 'in-doubt', reason: 'unreadable-response', status: 201 });
    expect(other.message).toBe(
      `the answer names clinicOrderId "SOMEONE-ELSES-1", not "${sent}" as sent: the outcome is unknown`,
    );
    server.answer(json(200, { orderId: 78, clinicOrderId: sent, clinicCode: 'ANOTHER-CLINIC' }));
    expect(errorOf(await client().createWithClinic(order)).message).toMatch(/names clinicCode "ANOTHER-CLINIC"/);
    // The stored-body path (the outbox's) checks the same, reading the body it sent.
    server.answer(json(201, { orderId: 79, clinicOrderId: 12345 }));
    const stored = await client().sendCreate('v1', JSON.stringify(order));
    expect(errorOf(stored)).toMatchObject({ kind: 'in-doubt', reason: 'unreadable-response' });
  });

  it('one that names this order (or nothing, or null) is the order created', async () => {
    const order = sampleV1();
    for (const extra of [
      { clinicOrderId: order.prescription.clinicOrderId, clinicCode: order.clinicInformation.clinicCode },
      { clinicOrderId: null, status: 'created' },
      {},
    ]) {
      server.answer(json(201, { orderId: 80, ...extra }));
      expect(valueOf(await client().createWithClinic(order)), JSON.stringify(extra)).toEqual({ orderId: 80 });
      server.answer(json(201, { orderId: 81, ...extra }));
      expect(valueOf(await client().sendCreate('v1', JSON.stringify(order)))).toEqual({ orderId: 81 });
    }
  });

  it("a cancel answered with another order's status record is in doubt (its status is checked before anything)", async () => {
    const cancel = { orderId: 9, clinicCode: 'C', cancelReason: 'r' };
    server.answer(json(200, { pharmacyOrderId: '10', clinicOrderId: 'X', orderStatus: 'Cancelled' }));
    const error = errorOf(await client().cancel(cancel));
    expect(error).toMatchObject({ kind: 'in-doubt', reason: 'unreadable-response', status: 200 });
    expect(error.message).toMatch(/names pharmacyOrderId "10", not "9"/);
    server.answer(json(200, { pharmacyOrderId: 9, orderStatus: 'Cancelled' }));
    expect(valueOf(await client().cancel(cancel))).toMatchObject({ pharmacyOrderId: '9', orderStatus: 'Cancelled' });
    server.answer(json(200, { pharmacyOrderId: null, orderStatus: 'Cancelled' }));
    expect(valueOf(await client().cancel(cancel))).toMatchObject({ orderStatus: 'Cancelled' });
    // This pharmacy id, in another clinic's name: not this cancel's answer either.
    server.answer(json(200, { pharmacyOrderId: '9', clinicCode: 'ELSEWHERE', orderStatus: 'Cancelled' }));
    expect(errorOf(await client().cancel(cancel)).message).toMatch(/names clinicCode "ELSEWHERE", not "C"/);
  });
});

describe('a status read about another order', () => {
  it('a status by pharmacy id or by clinic order number naming another order is retryable, not that order', async () => {
    server.answer(json(200, { pharmacyOrderId: '10', clinicOrderId: 'X', orderStatus: 'Cancelled' }));
    const byId = errorOf(await client().status(9));
    expect(byId).toMatchObject({ kind: 'retryable', reason: 'unreadable-response' });
    expect(byId.message).toMatch(/names pharmacyOrderId "10", not "9"/);
    const byNumber = errorOf(await client().statusByClinicOrderNumber('A-1'));
    expect(byNumber.message).toMatch(/names clinicOrderId "X", not "A-1"/);
    server.answer(json(200, { pharmacyOrderId: 9, clinicOrderId: null, orderStatus: 'Cancelled' }));
    expect(valueOf(await client().status(9))).toMatchObject({ pharmacyOrderId: '9', orderStatus: 'Cancelled' });
  });
});

describe('broken and oversized bodies', () => {
  it('a chunked answer that stops mid-way: a create is in doubt, a read retryable', async () => {
    server.answer((socket) => {
      socket.write('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\ncontent-type: application/json\r\n\r\n');
      socket.write('5\r\n{"ord\r\n');
      setTimeout(() => socket.end(), 20);
    });
    expect(errorOf(await create())).toMatchObject({ kind: 'in-doubt', reason: 'reset' });
    expect(errorOf(await client().status(1))).toMatchObject({ kind: 'retryable', reason: 'network' });
  });

  it('a body far larger than any answer is cut off at the limit, without waiting for its end', async () => {
    let written = 0;
    server.answer((socket) => {
      socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n');
      const chunk = Buffer.alloc(256 * 1024, 0x20);
      const pump = () => {
        while (!socket.destroyed && written < 20 * MAX_RESPONSE_BYTES) {
          written += chunk.length;
          if (!socket.write(`${chunk.length.toString(16)}\r\n${chunk.toString()}\r\n`)) {
            socket.once('drain', pump);
            return;
          }
        }
      };
      socket.on('error', () => {});
      pump();
    });
    const started = performance.now();
    expect(errorOf(await create(10_000))).toMatchObject({ kind: 'in-doubt', reason: 'unreadable-response' });
    expect(performance.now() - started).toBeLessThan(5_000);
    // It stopped reading soon after the limit: the server did not get to send its 200 MB.
    expect(written).toBeLessThan(4 * MAX_RESPONSE_BYTES);
  });

  it('a header block beyond the parser limit is a lost answer (in doubt), not a crash', async () => {
    server.answer((socket) => socket.end(`HTTP/1.1 200 OK\r\nx-junk: ${'a'.repeat(100_000)}\r\n\r\n{"orderId":1}`));
    expect(errorOf(await create())).toMatchObject({ kind: 'in-doubt', reason: 'reset' });
  });

  it('bytes that are not HTTP at all: in doubt for a create', async () => {
    server.answer((socket) => socket.end('SSH-2.0-OpenSSH_9.6\r\n'));
    expect(errorOf(await create())).toMatchObject({ kind: 'in-doubt', reason: 'reset' });
  });

  it('a Content-Length shorter than the body, or two of them: in doubt, saying the answer was not valid HTTP', async () => {
    const body = '{"orderId":123}';
    const heads = [`content-length: ${body.length - 2}`, `content-length: ${body.length}\r\ncontent-length: 5`];
    for (const head of heads) {
      server.answer((socket) => socket.end(`HTTP/1.1 201 Created\r\n${head}\r\n\r\n${body}`));
      const error = errorOf(await create());
      expect(error, head).toMatchObject({ kind: 'in-doubt', reason: 'reset' });
      expect(error.message, head).toMatch(
        /^sent, but the answer was not valid HTTP \(HPE_[A-Z_]+\): the outcome is unknown$/,
      );
    }
    server.answer((socket) => socket.end(`HTTP/1.1 200 OK\r\ncontent-length: 2\r\ncontent-length: 5\r\n\r\n[]`));
    expect(errorOf(await client().status(1)).message).toMatch(/^the answer was not valid HTTP \(HPE_/);
  });

  it('a Content-Length longer than the body, the connection then closed: in doubt, the answer cut short', async () => {
    server.answer((socket) => socket.end('HTTP/1.1 201 Created\r\ncontent-length: 40\r\n\r\n{"orderId":123}'));
    expect(errorOf(await create())).toMatchObject({ kind: 'in-doubt', reason: 'reset' });
  });
});

describe('the deadline is for the whole exchange', () => {
  it('headers trickling in, a byte at a time faster than any idle timeout, still end at the deadline', async () => {
    server.answer((socket) => {
      const head = 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nx-slow: ' + 'a'.repeat(500);
      let at = 0;
      const timer = setInterval(() => {
        if (socket.destroyed) return clearInterval(timer);
        socket.write(head[at % head.length]!);
        at += 1;
      }, 20);
      socket.on('close', () => clearInterval(timer));
    });
    let started = performance.now();
    expect(errorOf(await create(400))).toMatchObject({ kind: 'in-doubt', reason: 'timeout' });
    expect(performance.now() - started).toBeLessThan(1_500);
    started = performance.now();
    expect(errorOf(await client(400).status(1))).toMatchObject({ kind: 'retryable', reason: 'network' });
    expect(performance.now() - started).toBeLessThan(1_500);
  });

  it('an answer whose body never ends: in doubt at the deadline', async () => {
    server.answer((socket) => {
      socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"orderId":');
      const timer = setInterval(() => (socket.destroyed ? clearInterval(timer) : socket.write(' ')), 20);
      socket.on('close', () => clearInterval(timer));
    });
    const started = performance.now();
    expect(errorOf(await create(400))).toMatchObject({ kind: 'in-doubt', reason: 'timeout' });
    expect(performance.now() - started).toBeLessThan(1_500);
  });
});

describe('connections', () => {
  it('a server that offers keep-alive and closes between requests: each request has a connection of its own', async () => {
    server.answer((socket) => {
      socket.write(rawAnswer(200, '{"orderId":7}', { connection: 'keep-alive', 'content-type': 'application/json' }));
      setTimeout(() => socket.destroy(), 5);
    });
    const before = server.connections();
    const c = client();
    for (let i = 0; i < 3; i += 1) {
      expect(valueOf(await c.createWithClinic(sampleV1()))).toEqual({ orderId: 7 });
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(server.connections() - before).toBe(3);
  });

  it('a reset after the request was read: a create is in doubt, a read retryable', async () => {
    server.answer((socket) => socket.resetAndDestroy());
    expect(errorOf(await create())).toMatchObject({ kind: 'in-doubt', reason: 'reset' });
    expect(server.requests).toHaveLength(1);
    expect(errorOf(await client().status(1))).toMatchObject({ kind: 'retryable', reason: 'network' });
  });

  it('a reset while connecting is retryable (nothing was written); one after the connection opened is in doubt', async () => {
    // Reset at accept: the client's connect fails (connect ECONNRESET), so the request never left.
    server.answer(onConnect((socket) => socket.resetAndDestroy()));
    const refused = errorOf(await create());
    expect(refused).toMatchObject({ kind: 'retryable', reason: 'network' });
    expect(refused.message).toMatch(/ECONNRESET/);
    // Reset once the connection is open, whether or not the server read the request: the client cannot tell, so
    // a create is in doubt (the lookup settles it) and only a read is simply retryable.
    server.answer(onConnect((socket) => setTimeout(() => socket.resetAndDestroy(), 30)));
    expect(errorOf(await create())).toMatchObject({ kind: 'in-doubt', reason: 'reset' });
    expect(errorOf(await client().status(1))).toMatchObject({ kind: 'retryable', reason: 'network' });
  });
});

describe('error answers', () => {
  it('extra fields in the envelope are ignored; a plain string body is the message', async () => {
    server.answer(
      json(400, { error: 'Invalid courier', status: 400, traceId: 'abc', details: { field: 'x', message: 'y' } }),
    );
    expect(errorOf(await create())).toMatchObject({
      kind: 'rejected',
      status: 400,
      message: 'Invalid courier: y',
      fields: [{ field: 'x', message: 'y' }],
    });
    server.answer(json(400, '"Invalid prescriber"'));
    expect(errorOf(await create())).toMatchObject({ kind: 'rejected', message: 'Invalid prescriber' });
  });

  it('problem details (ASP.NET) and other envelope shapes give a message and fields, not raw JSON', async () => {
    server.answer(
      answerWith(
        400,
        JSON.stringify({
          type: 'https://tools.ietf.org/html/rfc9110#section-15.5.1',
          title: 'One or more validation errors occurred.',
          status: 400,
          errors: { 'Prescription.ClinicOrderId': ['Duplicate clinicOrderId'] },
        }),
        { 'content-type': 'application/problem+json' },
      ),
    );
    const error = errorOf(await create());
    expect(error).toEqual({
      kind: 'rejected',
      status: 400,
      message: 'One or more validation errors occurred.',
      fields: [{ field: 'Prescription.ClinicOrderId', message: 'Duplicate clinicOrderId' }],
    });
    server.answer(
      json(400, { error: 'Validation failed', status: 400, details: { message: ['bad dob', 'no surname'] } }),
    );
    expect(errorOf(await create())).toMatchObject({ message: 'Validation failed: bad dob; no surname' });
  });

  it.each([409, 410, 422, 418])('%i (not in the contract) is rejected with its message', async (status) => {
    server.answer(json(status, { error: `refused ${status}`, status }));
    expect(errorOf(await create())).toMatchObject({ kind: 'rejected', status, message: `refused ${status}` });
  });

  it('a 500 with a huge HTML page is in doubt with a short message', async () => {
    server.answer(answerWith(500, `<html>${'x'.repeat(200_000)}</html>`, { 'content-type': 'text/html' }));
    const error = errorOf(await create());
    expect(error).toMatchObject({ kind: 'in-doubt', reason: 'server', status: 500 });
    expect(error.message.length).toBeLessThan(600);
  });

  it('401 invalid_token: one refresh and one resend, then auth', async () => {
    server.answer(answerWith(401, '', { 'www-authenticate': 'Bearer error="invalid_token"' }));
    const outcome = await create();
    expect(errorOf(outcome)).toMatchObject({ kind: 'auth', status: 401 });
    expect(outcome.meta.attempts).toBe(2);
    expect(refreshes).toBe(1);
  });

  it('401 with an empty body says what the challenge says (error_description), cut short', async () => {
    server.answer(
      answerWith(401, '', {
        'www-authenticate': `Bearer realm="api", error="invalid_token", error_description="The token expired at '12:00'${'!'.repeat(500)}"`,
      }),
    );
    const error = errorOf(await create());
    expect(error).toMatchObject({ kind: 'auth', status: 401 });
    expect(error.message).toMatch(/^sign-in required: invalid_token: The token expired at '12:00'!+…$/);
    expect(error.message.length).toBeLessThan(300);
  });

  it('403 insufficient_scope is a sign-in matter (the token lacks a scope), not a refusal of this order', async () => {
    server.answer(
      answerWith(403, '', { 'www-authenticate': 'Bearer error="insufficient_scope", scope="cloudrx_orderservice"' }),
    );
    const outcome = await create();
    const error = errorOf(outcome);
    expect(error).toMatchObject({ kind: 'auth', status: 403 });
    expect(error.message).toMatch(/lacks .*cloudrx_orderservice.*check the environment's scopes/);
    // A refresh gives a token with the same scopes: not tried.
    expect(outcome.meta.attempts).toBe(1);
    expect(refreshes).toBe(0);
  });

  it('403 invalid_token (where a 401 belonged) is refreshed once and sent again, like a 401', async () => {
    let calls = 0;
    server.answer((socket) => {
      calls += 1;
      socket.end(
        calls === 1
          ? rawAnswer(403, '', { 'www-authenticate': 'Bearer error="invalid_token"' })
          : rawAnswer(200, '{"orderId":46}', { 'content-type': 'application/json' }),
      );
    });
    const outcome = await create();
    expect(valueOf(outcome)).toEqual({ orderId: 46 });
    expect(outcome.meta.attempts).toBe(2);
    expect(refreshes).toBe(1);
  });

  it('a service that echoes the token back (body, challenge, Location) never gets it into a message', async () => {
    const echo = (
      status: number,
      body: (auth: string) => unknown,
      headers: (auth: string) => Record<string, string> = () => ({}),
    ) =>
      ((socket, request) => {
        const auth = request.headers.authorization ?? '';
        const answer = body(auth);
        const text = typeof answer === 'string' ? answer : JSON.stringify(answer);
        socket.end(rawAnswer(status, text, { 'content-type': 'application/json', ...headers(auth) }));
      }) as Parameters<HostileServer['answer']>[0];
    server.answer(
      echo(400, (auth) => ({
        error: `Rejected request with header '${auth}'${'.'.repeat(600)}`,
        status: 400,
        details: [{ field: 'authorization', message: auth }],
      })),
    );
    const rejected = errorOf(await create());
    expect(rejected).toMatchObject({ kind: 'rejected', status: 400 });
    expect(JSON.stringify(rejected)).not.toContain(TOKEN);
    expect(rejected.message).toContain('Bearer [token]');
    server.answer(
      echo(
        401,
        () => '',
        (auth) => ({ 'www-authenticate': `Bearer error="invalid_token", error_description="${auth} expired"` }),
      ),
    );
    expect(errorOf(await create()).message).toContain('[token] expired');
    server.answer(
      echo(
        302,
        () => '',
        (auth) => ({ location: `https://elsewhere.example/?t=${auth.slice(7)}` }),
      ),
    );
    expect(errorOf(await client().status(1)).message).toContain('t=[token]');
    server.answer(echo(503, (auth) => `upstream said: ${auth}`));
    expect(JSON.stringify(errorOf(await create()))).not.toContain(TOKEN);
  });

  it('a short token is scrubbed where it is echoed, and nowhere it is only part of another word', async () => {
    // A test account's token of four characters: "abc1" inside "abc123" or "xabc1" is the service's own text.
    const short: TokenSource = { getAccessToken: () => Promise.resolve('abc1'), refresh: () => Promise.resolve(true) };
    const shortClient = createOrderServiceClient({
      apiBaseUrl: server.url,
      tokens: short,
      timeoutMs: 5_000,
      userAgent: 'RxBatch/hostile-test',
      createWithClinicVersion: 'v1',
    });
    server.answer((socket, request) => {
      const auth = request.headers.authorization ?? '';
      const text = JSON.stringify({ error: `Clinic abc123 (ref xabc1) refused '${auth}'; token=abc1.`, status: 400 });
      socket.end(rawAnswer(400, text, { 'content-type': 'application/json' }));
    });
    const outcome = await shortClient.createWithClinic(sampleV1());
    if (outcome.ok) throw new Error('expected a rejection');
    expect(outcome.error.message).toBe("Clinic abc123 (ref xabc1) refused 'Bearer [token]'; token=[token].");
  });

  it('a plain 403 that a renewed token draws too is rejected (the patient is locked out, say)', async () => {
    server.answer(json(403, { error: 'Patient locked out', status: 403 }));
    const once = client();
    const first = await once.createWithClinic(sampleV1());
    expect(errorOf(first)).toMatchObject({ kind: 'rejected', status: 403, message: 'Patient locked out' });
    expect(first.meta.attempts).toBe(2);
    expect(refreshes).toBe(1);
    // The next locked-out patient is refused at its word: no renewal an order.
    const second = await once.createWithClinic(sampleV1());
    expect(errorOf(second)).toMatchObject({ kind: 'rejected', status: 403 });
    expect(second.meta.attempts).toBe(1);
    expect(refreshes).toBe(1);
  });

  it('a plain 403 for a token the gateway holds expired is sent again once with a renewed one', async () => {
    let calls = 0;
    server.answer((socket) => {
      calls += 1;
      socket.end(
        calls === 1
          ? rawAnswer(403, '{"error":"Forbidden","status":403}', { 'content-type': 'application/json' })
          : rawAnswer(200, '{"orderId":47}', { 'content-type': 'application/json' }),
      );
    });
    const outcome = await create();
    expect(valueOf(outcome)).toEqual({ orderId: 47 });
    expect(outcome.meta.attempts).toBe(2);
    expect(refreshes).toBe(1);
  });

  it('a secured call with no token to give is not sent at all: no body goes out unauthenticated', async () => {
    const noToken: TokenSource = { getAccessToken: () => Promise.resolve(null), refresh: () => Promise.resolve(false) };
    const before = server.requests.length;
    const outcome = await createOrderServiceClient({
      apiBaseUrl: server.url,
      tokens: noToken,
      timeoutMs: 5_000,
      userAgent: 'RxBatch/hostile-test',
      createWithClinicVersion: 'v1',
    }).createWithClinic(sampleV1());
    expect(errorOf(outcome)).toEqual({ kind: 'auth', status: 0, message: 'not signed in: nothing was sent' });
    expect(outcome.meta.attempts).toBe(0);
    expect(server.requests.length).toBe(before);
  });

  it('a plain 403 when the sign-in cannot be renewed is a sign-in matter, not a refusal of the order', async () => {
    const signedOut: TokenSource = {
      getAccessToken: () => Promise.resolve(TOKEN),
      refresh: () => Promise.resolve(false),
    };
    server.answer(json(403, { error: 'Forbidden', status: 403 }));
    const outcome = await createOrderServiceClient({
      apiBaseUrl: server.url,
      tokens: signedOut,
      timeoutMs: 5_000,
      userAgent: 'RxBatch/hostile-test',
      createWithClinicVersion: 'v1',
    }).createWithClinic(sampleV1());
    const error = errorOf(outcome);
    expect(error).toMatchObject({ kind: 'auth', status: 403 });
    expect(error.message).toMatch(/^sign-in required/);
    expect(outcome.meta.attempts).toBe(1);
  });
});

describe('status records', () => {
  it('keeps unknown status texts and dates in other formats as they came; a numeric pharmacy id as digits', async () => {
    server.answer(
      json(200, [
        {
          clinicOrderId: 'A-1',
          pharmacyOrderId: 12,
          orderStatus: 'On Hold - Query',
          dispatchDate: '06/11/2026 14:03 +01:00',
        },
      ]),
    );
    expect(valueOf(await client().statusWithClinicCode({ clinicCode: 'C', clinicOrderId: 'A-1' }))).toEqual([
      {
        clinicOrderId: 'A-1',
        pharmacyOrderId: '12',
        orderStatus: 'On Hold - Query',
        dispatchDate: '06/11/2026 14:03 +01:00',
      },
    ]);
  });

  it('known statuses in other cases and spacing read as the known status; numbers where text belongs, as text', async () => {
    server.answer(
      json(200, [
        { clinicOrderId: 12345, pharmacyOrderId: 9, orderStatus: 'PRESCRIPTION  DISPATCHED', trackingId: 998877 },
        { clinicOrderId: 'B-2', pharmacyOrderId: '10', orderStatus: ' cancelled ', dispatchDate: 20261106 },
        { clinicOrderId: 'B-3', pharmacyOrderId: '11', orderStatus: 'Cancelled by pharmacy', cancelReason: 7 },
      ]),
    );
    expect(valueOf(await client().statusWithClinicCode({ clinicCode: 'C', clinicOrderId: '12345' }))).toEqual([
      { clinicOrderId: '12345', pharmacyOrderId: '9', orderStatus: 'Prescription Dispatched', trackingId: '998877' },
      { clinicOrderId: 'B-2', pharmacyOrderId: '10', orderStatus: 'Cancelled', dispatchDate: '20261106' },
      // Unknown: kept exactly as it came.
      { clinicOrderId: 'B-3', pharmacyOrderId: '11', orderStatus: 'Cancelled by pharmacy', cancelReason: '7' },
    ]);
  });

  it('dm+d codes as digit strings and as numbers beyond 2^53 come back digit for digit', async () => {
    server.answer(
      answerWith(
        200,
        '[{"productId":1,"dmdCode":"219780111000001103","name":"A"},{"productId":2,"dmdCode":365895111000001107,"name":"B"}]',
      ),
    );
    const products = valueOf(await client().searchProducts('a'));
    expect(products.map((p) => p.dmdCode)).toEqual(['219780111000001103', '365895111000001107']);
    // Product search is anonymous: no token at all.
    expect(server.requests.at(-1)?.headers.authorization).toBeUndefined();
  });
});

describe('a price for something else', () => {
  it('a price check answered for another pack count or another product is retryable, not shown as this one', async () => {
    const code = '219780111000001103';
    server.answer(json(200, { dmdCode: code, totalPacks: 1, unitPrice: 4.5, totalPrice: 4.5, currencyCode: 'GBP' }));
    const packs = errorOf(await client().priceCheck({ dmdCode: code }, 3));
    expect(packs).toMatchObject({ kind: 'retryable', reason: 'unreadable-response' });
    expect(packs.message).toMatch(/names totalPacks "1", not "3"/);
    server.answer(
      answerWith(
        200,
        '{"dmdCode":365895111000001107,"totalPacks":3,"unitPrice":4.5,"totalPrice":13.5,"currencyCode":"GBP"}',
      ),
    );
    expect(errorOf(await client().priceCheck({ dmdCode: code }, 3)).message).toMatch(
      /names dmdCode "365895111000001107", not "219780111000001103"/,
    );
    // The same product and packs, the 18-digit code as a JSON number: this product's price.
    server.answer(
      answerWith(
        200,
        `{"dmdCode":${code},"productId":null,"totalPacks":3,"unitPrice":4.5,"totalPrice":13.5,"currencyCode":"GBP"}`,
      ),
    );
    expect(valueOf(await client().priceCheck({ dmdCode: code }, 3))).toMatchObject({ dmdCode: code, totalPrice: 13.5 });
  });
});

describe('lookups whose answers break their shape', () => {
  it('prices as text with a currency sign, a negative price, a stock flag as text: retryable, naming the field', async () => {
    server.answer(json(200, { totalPacks: 2, unitPrice: '£4.50', totalPrice: 9, currencyCode: 'GBP' }));
    const price = errorOf(await client().priceCheck({ productId: 1 }, 2));
    expect(price).toMatchObject({ kind: 'retryable', reason: 'unreadable-response', status: 200 });
    expect(price.message).toMatch(
      /^the answer has an unexpected shape \(unitPrice: .*expected number, received string\)$/,
    );
    expect(price.message).not.toContain('£');
    server.answer(
      json(200, [
        { courierCode: 'RMT24', deliveryOption: 'Tracked 24', price: 3.2, currencyCode: 'GBP' },
        { courierCode: 'RMT48', deliveryOption: 'Tracked 48', price: -1, currencyCode: 'GBP' },
      ]),
    );
    expect(errorOf(await client().courierPriceList()).message).toMatch(/\(\[1\]\.price: /);
    server.answer(json(200, { inStock: 'yes' }));
    expect(errorOf(await client().stockCheck({ productId: 1 })).message).toMatch(/\(inStock: /);
    // A paged object where the contract says a list: said of the whole answer.
    server.answer(json(200, { items: [], next: `${other.url}page2` }));
    expect(errorOf(await client().searchProducts('para')).message).toMatch(/\(the whole answer: /);
    expect(other.requests).toEqual([]);
  });
});

describe('compressed answers', () => {
  it('gzip, deflate and br are decoded, for a create, a read and an error; the request says which it takes', async () => {
    const codings: Array<[string, (b: Buffer) => Buffer]> = [
      ['gzip', gzipSync],
      ['x-gzip', gzipSync],
      ['deflate', deflateSync],
      ['br', brotliCompressSync],
      ['deflate, gzip', (b) => gzipSync(deflateSync(b))],
    ];
    for (const [coding, encode] of codings) {
      const encoded = (status: number, text: string) =>
        answerWith(status, encode(Buffer.from(text)), {
          'content-type': 'application/json',
          'content-encoding': coding,
        });
      server.answer(encoded(200, '{"orderId":45}'));
      expect(valueOf(await create()), coding).toEqual({ orderId: 45 });
      server.answer(encoded(200, '[{"clinicOrderId":"A-1","pharmacyOrderId":"45","orderStatus":"Cancelled"}]'));
      expect(valueOf(await client().statusWithClinicCode({ clinicCode: 'C', clinicOrderId: 'A-1' })), coding).toEqual([
        { clinicOrderId: 'A-1', pharmacyOrderId: '45', orderStatus: 'Cancelled' },
      ]);
      server.answer(encoded(400, '{"error":"Invalid courier","status":400}'));
      expect(errorOf(await create()), coding).toMatchObject({ kind: 'rejected', message: 'Invalid courier' });
    }
    expect(server.requests.at(-1)?.headers['accept-encoding']).toBe('gzip, deflate, br');
  });

  it('a coding it does not read, or a corrupt one: a create in doubt, a read retryable, both saying why', async () => {
    server.answer(answerWith(200, 'whatever', { 'content-encoding': 'compress' }));
    const unknown = errorOf(await create());
    expect(unknown).toMatchObject({ kind: 'in-doubt', reason: 'unreadable-response' });
    expect(unknown.message).toMatch(/encoded as "compress"/);
    server.answer(answerWith(200, Buffer.from('not gzip at all'), { 'content-encoding': 'gzip' }));
    const corrupt = errorOf(await client().status(1));
    expect(corrupt).toMatchObject({ kind: 'retryable', reason: 'unreadable-response' });
    expect(corrupt.message).toMatch(/gzip encoding is corrupt/);
    server.answer(answerWith(503, Buffer.from('junk'), { 'content-encoding': 'gzip' }));
    expect(errorOf(await create())).toMatchObject({ kind: 'in-doubt', reason: 'server', status: 503 });
  });

  it('a gzip bomb (1 MB that inflates past the limit) is cut off at the limit, decoded bytes counted', async () => {
    const bomb = gzipSync(Buffer.alloc(MAX_RESPONSE_BYTES * 4, 0x20));
    expect(bomb.length).toBeLessThan(MAX_RESPONSE_BYTES / 10);
    server.answer(answerWith(200, bomb, { 'content-encoding': 'gzip', 'content-type': 'application/json' }));
    const error = errorOf(await create());
    expect(error).toMatchObject({ kind: 'in-doubt', reason: 'unreadable-response' });
    expect(error.message).toMatch(/too large/);
  });
});
