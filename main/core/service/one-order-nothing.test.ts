import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saysNoSuchOrder } from './no-such-order.js';
import { answerWith, startHostileServer, type HostileServer, rawServerClient } from './testing/hostile-server.js';

/**
 * A lookup of one order (`status`, `status-clinic-ordernumber`) answered with nothing: ASP.NET Core's 204 for an action
 * that returned null, or a 200 with an empty body or `null` when its no-content formatter is off. The contract says
 * 404 or 400 for an order it does not have; this is the same answer in the framework's words. Before, each read as
 * "the answer was empty", retryable, and the admin's lookup showed a failure where the service had said "none".
 * Lists (what the outbox's reconcile reads): a 204 or a 200 `null` lists nothing, an empty 200 is unreadable.
 */

let server: HostileServer;
beforeAll(async () => {
  server = await startHostileServer();
});
afterAll(async () => {
  await server.close();
});

const client = () => rawServerClient(server.url);

const JSON_TYPE = { 'content-type': 'application/json' };

describe('a lookup of one order answered with nothing', () => {
  it.each([
    ['204 No Content', 204, '', '204 No Content'],
    ['a 200 with an empty body', 200, '', '200 with an empty body'],
    ['a 200 with only whitespace', 200, ' \r\n', '200 with an empty body'],
    ['a 200 with null', 200, 'null', '200 with null'],
  ])('by pharmacy order id, %s: the service has no such order', async (_name, status, body, said) => {
    server.answer(answerWith(status, body, JSON_TYPE));
    const outcome = await client().status(9001);
    expect(outcome).toMatchObject({
      ok: false,
      error: {
        kind: 'rejected',
        status,
        noSuchOrder: true,
        message: `no such order: the service answered ${said} to a lookup of one order (it names none)`,
      },
    });
    expect(!outcome.ok && saysNoSuchOrder(outcome.error)).toBe(true);
  });

  it('by clinic order number, 204 No Content: the service has no such order', async () => {
    server.answer(answerWith(204));
    const outcome = await client().statusByClinicOrderNumber('CLINIC-ORDER-1');
    expect(outcome).toMatchObject({ ok: false, error: { kind: 'rejected', status: 204, noSuchOrder: true } });
    expect(!outcome.ok && saysNoSuchOrder(outcome.error)).toBe(true);
  });

  it('a list of none is none, a list of one its record, a longer list says so', async () => {
    server.answer(answerWith(200, '[]', JSON_TYPE));
    expect(await client().status(9001)).toMatchObject({
      ok: false,
      error: {
        kind: 'rejected',
        noSuchOrder: true,
        message: 'no such order: the service answered 200 with an empty list to a lookup of one order (it names none)',
      },
    });
    const record = { clinicOrderId: 'CLINIC-ORDER-1', pharmacyOrderId: '9001', orderStatus: 'Cancelled' };
    server.answer(answerWith(200, JSON.stringify([record]), JSON_TYPE));
    expect(await client().statusByClinicOrderNumber('CLINIC-ORDER-1')).toMatchObject({ ok: true, value: record });
    // The one it lists is still checked against the order asked for.
    server.answer(answerWith(200, JSON.stringify([{ ...record, pharmacyOrderId: '9002' }]), JSON_TYPE));
    expect(await client().status(9001)).toMatchObject({ ok: false, error: { kind: 'retryable' } });
    server.answer(answerWith(200, JSON.stringify([record, record]), JSON_TYPE));
    expect(await client().status(9001)).toMatchObject({
      ok: false,
      error: { kind: 'retryable', reason: 'unreadable-response', message: 'the answer lists 2 records for one order' },
    });
  });

  it('a record is still a record', async () => {
    server.answer(answerWith(200, JSON.stringify({ pharmacyOrderId: '9001', orderStatus: 'Cancelled' }), JSON_TYPE));
    const outcome = await client().status(9001);
    expect(outcome).toMatchObject({ ok: true, value: { pharmacyOrderId: '9001', orderStatus: 'Cancelled' } });
  });
});

describe('a list read answered with nothing (what the outbox reconciles with)', () => {
  it('204 lists nothing', async () => {
    server.answer(answerWith(204));
    const outcome = await client().statusWithClinicCode({ clinicCode: 'CLINIC-A', clinicOrderId: 'C-1' });
    expect(outcome).toMatchObject({ ok: true, value: [] });
  });

  it('a 200 with null lists nothing, as a 204 does (the same framework answer, its formatter off)', async () => {
    server.answer(answerWith(200, 'null', JSON_TYPE));
    const outcome = await client().statusWithClinicCode({ clinicCode: 'CLINIC-A', clinicOrderId: 'C-1' });
    expect(outcome).toMatchObject({ ok: true, value: [] });
    server.answer(answerWith(200, ' null\n', JSON_TYPE));
    expect(await client().statusByDateRange({ startDate: '2026-12-01', endDate: '2026-12-03' })).toMatchObject({
      ok: true,
      value: [],
    });
  });

  it('an empty 200 is unreadable, not "none"', async () => {
    server.answer(answerWith(200, '', JSON_TYPE));
    const outcome = await client().statusWithClinicCode({ clinicCode: 'CLINIC-A', clinicOrderId: 'C-1' });
    expect(outcome).toMatchObject({
      ok: false,
      error: { kind: 'retryable', reason: 'unreadable-response', message: 'the answer was empty' },
    });
  });
});
