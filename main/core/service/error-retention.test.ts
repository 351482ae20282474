import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ServiceError } from '../../../shared/errors.js';
import { answerWith, startHostileServer, type HostileServer, rawServerClient } from './testing/hostile-server.js';

/**
 * A service whose refusals are megabytes (its envelope's `error` and a field's message, 3 MB a body). The error a call
 * ends in is kept with the order, for every order of a batch: it held the whole parsed envelope (`envelope`), and its
 * messages, though cut to 500 characters, were views of the body, which V8 then kept alive. Now an error keeps the
 * envelope's status only and words of its own. Real client, raw loopback server.
 */

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

let server: HostileServer;
beforeAll(async () => {
  server = await startHostileServer();
  const body = JSON.stringify({
    error: `Invalid order ${'x'.repeat(2_000_000)}`,
    status: 400,
    details: [{ field: 'prescriber', message: `unknown ${'y'.repeat(1_000_000)}` }],
  });
  server.answer(answerWith(400, body, { 'content-type': 'application/json' }));
});
afterAll(async () => {
  await server.close();
});

const client = () => rawServerClient(server.url);

async function refusal(): Promise<ServiceError> {
  const outcome = await client().status(4711);
  if (outcome.ok) throw new Error('expected a refusal');
  return outcome.error;
}

it('keeps of the envelope only that the service wrote it, and its status', async () => {
  const error = await refusal();
  expect(error).toMatchObject({ kind: 'rejected', status: 400, envelope: { status: 400 } });
  if (error.kind !== 'rejected') return;
  expect(Object.keys(error.envelope ?? {})).toEqual(['status']);
  expect(error.message).toHaveLength(500);
  expect(error.fields).toEqual([{ field: 'prescriber', message: expect.stringMatching(/^unknown y+$/) as unknown }]);
  expect(JSON.stringify(error).length).toBeLessThan(2_000);
});

it('kept errors hold none of the bodies they were read from', async () => {
  gc();
  const before = process.memoryUsage().heapUsed;
  const kept: ServiceError[] = [];
  for (let i = 0; i < 12; i += 1) kept.push(await refusal());
  gc();
  gc();
  const grown = process.memoryUsage().heapUsed - before;
  expect(kept).toHaveLength(12);
  // 12 bodies of 3 MB: before, about 36 MB stayed.
  expect(grown).toBeLessThan(10_000_000);
});
