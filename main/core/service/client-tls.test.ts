import { readFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { ServiceError } from '../../../shared/errors.js';
import { sampleV1 } from '../../../test/support/sample-orders.js';
import { createOrderServiceClient, type CallOutcome } from './client.js';
import { failureToError } from './error-mapping.js';

/**
 * Certificate problems say what is wrong and what fixes it, and that nothing was sent, where the admin read "could
 * not reach the service: self-signed certificate (DEPTH_ZERO_SELF_SIGNED_CERT)" under an outage banner. This
 * process does not trust test/fixtures/tls (the warm-connections TLS test trusts it in a child), so its
 * self-signed certificate is refused here as an unknown one would be.
 */

const fixture = (name: string) =>
  readFileSync(fileURLToPath(new URL(`../../../test/fixtures/tls/${name}`, import.meta.url)));

let server: { close(done: () => void): unknown } | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

const client = (apiBaseUrl: string) =>
  createOrderServiceClient({
    apiBaseUrl,
    tokens: { getAccessToken: () => Promise.resolve('token'), refresh: () => Promise.resolve(false) },
    timeoutMs: 5_000,
    userAgent: 'RxBatch/tls-test',
    createWithClinicVersion: 'v1',
  });

function errorOf(outcome: CallOutcome<unknown>): ServiceError {
  if (outcome.ok) throw new Error('expected a failure');
  return outcome.error;
}

describe('certificate problems', () => {
  it('a self-signed certificate: retryable, nothing sent, and the message says what to trust or check', async () => {
    let requests = 0;
    const https: Server = createServer(
      { cert: fixture('localhost.crt'), key: fixture('localhost.key') },
      (_req, res) => {
        requests += 1;
        res.end('{"orderId":1}');
      },
    );
    server = https;
    await new Promise<void>((resolve) => https.listen(0, '127.0.0.1', resolve));
    const { port } = https.address() as AddressInfo;
    const error = errorOf(await client(`https://localhost:${port}/`).createWithClinic(sampleV1()));
    expect(error).toMatchObject({ kind: 'retryable', reason: 'network' });
    expect(error.message).toMatch(/^the service's certificate is self-signed, so this computer does not trust it/);
    expect(error.message).toMatch(/trusted certificates; otherwise check the API base URL; nothing was sent/);
    expect(requests).toBe(0);
  });

  it('an https address that answers plain HTTP says to check the address, not that the service is down', async () => {
    let requests = 0;
    const plain = createHttpServer((_req, res) => {
      requests += 1;
      res.end('{"orderId":1}');
    });
    server = plain;
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    const { port } = plain.address() as AddressInfo;
    const error = errorOf(await client(`https://127.0.0.1:${port}/`).createWithClinic(sampleV1()));
    expect(error).toMatchObject({ kind: 'retryable', reason: 'network' });
    expect(error.message).toMatch(/^the address does not answer in HTTPS .*check the API base URL; nothing was sent/);
    expect(requests).toBe(0);
  });

  it('an expired certificate, one for another name, or an untrusted authority each say so', () => {
    const refused = (code: string, message: string) =>
      failureToError({ kind: 'failure', sent: false, timedOut: false, code, message }, true).message;
    expect(refused('CERT_HAS_EXPIRED', 'certificate has expired')).toMatch(/certificate has expired: ask .* renew it/);
    expect(
      refused('ERR_TLS_CERT_ALTNAME_INVALID', "Hostname/IP does not match certificate's altnames: Host: a.example"),
    ).toMatch(/for another name than the API base URL's/);
    expect(refused('UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'unable to get local issuer certificate')).toMatch(
      /authority this computer does not trust \(a company proxy/,
    );
    expect(refused('ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE', 'sslv3 alert handshake failure')).toMatch(
      /^the secure connection to the service could not be set up \(sslv3 alert handshake failure\)/,
    );
    // Anything else is as before.
    expect(refused('ECONNREFUSED', 'connect ECONNREFUSED')).toBe(
      'could not reach the service: connect ECONNREFUSED (ECONNREFUSED)',
    );
  });
});
