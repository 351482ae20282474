import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleV1 } from '../../../test/support/sample-orders.js';
import { answerWith, startHostileServer, type HostileServer, rawServerClient } from './testing/hostile-server.js';

/**
 * Answers in UTF-16 (a .NET service writing with Encoding.Unicode) or in a charset other than UTF-8. Before, every
 * body was read as UTF-8: a UTF-16 create answer was "not JSON", its order in doubt and looked up, and a Latin-1 "Zoë"
 * in a refusal came out "Zo�". Real client, raw loopback server.
 */

let server: HostileServer;
beforeAll(async () => {
  server = await startHostileServer();
});
afterAll(async () => {
  await server.close();
});

const client = () => rawServerClient(server.url);

const CREATED = '{"orderId": 4711}';
const utf16be = (text: string) => Buffer.from(text, 'utf16le').swap16();
const LE_BOM = Buffer.from([0xff, 0xfe]);
const BE_BOM = Buffer.from([0xfe, 0xff]);

describe('a create answered in UTF-16 is read, not left in doubt', () => {
  it.each<[string, Buffer, string]>([
    ['UTF-16LE with a byte order mark', Buffer.concat([LE_BOM, Buffer.from(CREATED, 'utf16le')]), 'application/json'],
    ['UTF-16BE with a byte order mark', Buffer.concat([BE_BOM, utf16be(CREATED)]), 'application/json; charset=utf-8'],
    ['charset=utf-16, little-endian, no mark', Buffer.from(CREATED, 'utf16le'), 'application/json; charset=utf-16'],
    ['charset=utf-16, big-endian, no mark', utf16be(CREATED), 'application/json; charset="UTF-16"'],
    ['charset=utf-16be, no mark', utf16be(CREATED), 'application/json; charset=utf-16be'],
    ['charset=utf-16le, no mark', Buffer.from(CREATED, 'utf16le'), 'application/json;charset=utf-16le'],
    // RFC 4627's detection: JSON starts with an ASCII character, so one of UTF-16's first two bytes is zero.
    ['UTF-16LE, no mark, labelled utf-8', Buffer.from(CREATED, 'utf16le'), 'application/json; charset=utf-8'],
    ['UTF-16BE, no mark, no charset', utf16be(CREATED), 'application/json'],
  ])('%s', async (_name, body, contentType) => {
    server.answer(answerWith(200, body, { 'content-type': contentType }));
    expect(await client().createWithClinic(sampleV1())).toMatchObject({ ok: true, value: { orderId: 4711 } });
  });
});

describe('a refusal in another charset keeps its words', () => {
  const refusal = JSON.stringify({ error: 'Prescriber Zoë Brontë is not registered', status: 400 });

  it('Latin-1, as its charset says', async () => {
    server.answer(
      answerWith(400, Buffer.from(refusal, 'latin1'), { 'content-type': 'application/json; charset=iso-8859-1' }),
    );
    const outcome = await client().createWithClinic(sampleV1());
    expect(outcome).toMatchObject({
      ok: false,
      error: { kind: 'rejected', message: 'Prescriber Zoë Brontë is not registered' },
    });
  });

  it('UTF-8 bytes under a Latin-1 label (a common slip) are read as UTF-8', async () => {
    server.answer(
      answerWith(400, Buffer.from(refusal, 'utf8'), { 'content-type': 'application/json; charset=windows-1252' }),
    );
    const outcome = await client().createWithClinic(sampleV1());
    expect(outcome).toMatchObject({
      ok: false,
      error: { kind: 'rejected', message: 'Prescriber Zoë Brontë is not registered' },
    });
  });

  it('an unknown charset is read as UTF-8, as before', async () => {
    server.answer(
      answerWith(400, Buffer.from(refusal, 'utf8'), { 'content-type': 'application/json; charset=x-made-up' }),
    );
    const outcome = await client().createWithClinic(sampleV1());
    expect(outcome).toMatchObject({
      ok: false,
      error: { kind: 'rejected', message: 'Prescriber Zoë Brontë is not registered' },
    });
  });

  it('a status record in UTF-16 with its mark', async () => {
    const record = JSON.stringify({ pharmacyOrderId: '9001', orderStatus: 'Cancelled', cancelReason: 'Zoë asked' });
    server.answer(
      answerWith(200, Buffer.concat([LE_BOM, Buffer.from(record, 'utf16le')]), { 'content-type': 'application/json' }),
    );
    expect(await client().status(9001)).toMatchObject({
      ok: true,
      value: { orderStatus: 'Cancelled', cancelReason: 'Zoë asked' },
    });
  });
});
