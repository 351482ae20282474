import { afterAll, beforeAll, expect, it } from 'vitest';
import { sampleV1 } from '../../../test/support/sample-orders.js';
import { answerWith, startHostileServer, type HostileServer, rawServerClient } from './testing/hostile-server.js';

/**
 * A service that serialises its JSON twice (a .NET action returning `JsonConvert.SerializeObject(x)`): every answer is
 * a JSON string holding the JSON. Before, a create so answered was in doubt, each lookup of it unreadable, so the
 * order stayed in doubt for good, and a refusal's message was raw JSON. Real client, raw loopback server.
 */

let server: HostileServer;
beforeAll(async () => {
  server = await startHostileServer();
});
afterAll(async () => {
  await server.close();
});

const client = () => rawServerClient(server.url);

const twice = (status: number, value: unknown) =>
  answerWith(status, JSON.stringify(JSON.stringify(value)), { 'content-type': 'application/json' });

it('a create answered so is read', async () => {
  server.answer(twice(200, { orderId: 4711 }));
  expect(await client().createWithClinic(sampleV1())).toMatchObject({ ok: true, value: { orderId: 4711 } });
});

it('a lookup answered so is read (what the outbox reconciles with)', async () => {
  const record = { clinicOrderId: 'C-1', pharmacyOrderId: '4711', orderStatus: 'Waiting Clinical Check' };
  server.answer(twice(200, [record]));
  const outcome = await client().statusWithClinicCode({ clinicCode: 'CLINIC-A', clinicOrderId: 'C-1' });
  expect(outcome).toMatchObject({ ok: true, value: [record] });
});

it("a refusal answered so gives the envelope's words and field", async () => {
  server.answer(twice(400, { error: 'Invalid courier', status: 400, details: { field: 'courierCode', message: 'x' } }));
  const outcome = await client().createWithClinic(sampleV1());
  expect(outcome).toMatchObject({
    ok: false,
    error: { kind: 'rejected', message: 'Invalid courier: x', fields: [{ field: 'courierCode', message: 'x' }] },
  });
});

it('a string holding anything else is still not an answer', async () => {
  server.answer(answerWith(200, JSON.stringify('{"orderId": 47'), { 'content-type': 'application/json' }));
  expect(await client().createWithClinic(sampleV1())).toMatchObject({
    ok: false,
    error: { kind: 'in-doubt', reason: 'unreadable-response' },
  });
});
