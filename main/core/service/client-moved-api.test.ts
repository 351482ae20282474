import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceError } from '../../../shared/errors.js';
import { sampleV1 } from '../../../test/support/sample-orders.js';
import { type CallOutcome } from './client.js';
import { answerWith, startHostileServer, type HostileServer, rawServerClient } from './testing/hostile-server.js';

/**
 * A service that answers on another path (a new API version, a base URL that lost its prefix): the old path gets
 * the web server's "not found" or "method not allowed", which says nothing about the order. A create or cancel so
 * answered was nothing done, not the order refused: retryable, saying to check the address and version.
 */

let server: HostileServer;
beforeAll(async () => {
  server = await startHostileServer();
});
afterAll(async () => {
  await server.close();
});

const client = () => rawServerClient(server.url);

function errorOf(outcome: CallOutcome<unknown>): ServiceError {
  if (outcome.ok) throw new Error(`expected a failure, got ${JSON.stringify(outcome.value)}`);
  return outcome.error;
}

const problem = { type: 'https://tools.ietf.org/html/rfc9110#section-15.5.5', title: 'Not Found', status: 404 };
const NOT_THERE: Array<[number, string, string]> = [
  [404, '', 'text/plain'],
  [404, '<!DOCTYPE html><html><body><h1>404 Not Found</h1><hr>nginx</body></html>', 'text/html'],
  [404, JSON.stringify(problem), 'application/problem+json'],
  [404, 'Cannot PUT /api/v1/Order/create-with-clinic', 'text/html'],
  [
    404,
    JSON.stringify({ Message: "No HTTP resource was found that matches the request URI 'x'." }),
    'application/json',
  ],
  [410, 'Gone', 'text/plain'],
  [405, JSON.stringify({ error: 'Method Not Allowed', status: 405 }), 'application/json'],
];

describe('a call the service does not offer at this address', () => {
  it('a create or cancel answered 404/410/405 without saying anything about the order is retryable, not rejected', async () => {
    for (const [status, body, type] of NOT_THERE) {
      server.answer(answerWith(status, body, { 'content-type': type }));
      for (const outcome of [
        await client().createWithClinic(sampleV1()),
        await client().cancel({ orderId: 9, clinicCode: 'C', cancelReason: 'r' }),
      ]) {
        const error = errorOf(outcome);
        expect(error, `${status} ${body}`).toMatchObject({ kind: 'retryable', reason: 'server', status });
        expect(error.message).toMatch(
          /^the service has no such call at this address \(4\d\d: .*\): check the API base URL and the API version/,
        );
      }
    }
  });

  it("a 404 that is the service's own answer (its envelope, a field, a sentence) is still a refusal", async () => {
    const answers = [
      { error: 'Not Found', status: 404, details: { message: 'clinic CLINIC-9 is not registered' } },
      { title: 'Not Found', errors: { 'clinicInformation.clinicCode': ['unknown clinic'] } },
      'Clinic not found',
    ];
    for (const body of answers) {
      server.answer(answerWith(404, typeof body === 'string' ? body : JSON.stringify(body)));
      expect(errorOf(await client().createWithClinic(sampleV1()))).toMatchObject({ kind: 'rejected', status: 404 });
    }
  });

  it('a read answered so is as before (a lookup decides what its 404 means)', async () => {
    server.answer(answerWith(404, ''));
    expect(errorOf(await client().status(5))).toMatchObject({ kind: 'rejected', status: 404 });
  });
});
