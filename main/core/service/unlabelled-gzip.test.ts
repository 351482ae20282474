import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleV1 } from '../../../test/support/sample-orders.js';
import { MAX_RESPONSE_BYTES } from './http-exchange.js';
import { answerWith, startHostileServer, type HostileServer, rawServerClient } from './testing/hostile-server.js';

/**
 * A body gzip-compressed with no Content-Encoding to say so (a server or proxy compressing on its own). Before, it was
 * read as text: "not JSON", and a create so answered was in doubt and looked up. Real client, raw loopback server.
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

describe('gzip that no Content-Encoding names', () => {
  it('is inflated: a create is read, not left in doubt', async () => {
    server.answer(answerWith(200, gzipSync(Buffer.from(CREATED)), { 'content-type': 'application/json' }));
    expect(await client().createWithClinic(sampleV1())).toMatchObject({ ok: true, value: { orderId: 4711 } });
  });

  it('a corrupt one says so', async () => {
    const cut = gzipSync(Buffer.from(CREATED)).subarray(0, 12);
    server.answer(answerWith(200, cut, { 'content-type': 'application/json' }));
    expect(await client().createWithClinic(sampleV1())).toMatchObject({
      ok: false,
      error: {
        kind: 'in-doubt',
        reason: 'unreadable-response',
        message:
          'the answer is gzip-compressed without saying so (no Content-Encoding), and corrupt: the outcome is unknown',
      },
    });
  });

  it('a bomb stops at the limit', async () => {
    server.answer(
      answerWith(200, gzipSync(Buffer.alloc(MAX_RESPONSE_BYTES * 2, 0x20)), { 'content-type': 'application/json' }),
    );
    expect(await client().createWithClinic(sampleV1())).toMatchObject({
      ok: false,
      error: { kind: 'in-doubt', message: 'the answer was too large: the outcome is unknown' },
    });
  });
});
