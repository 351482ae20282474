import { readFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { AuthError } from './auth-error.js';
import { IdentityServer } from './identity-server.js';
import { toAuthError } from './oauth-errors.js';

/**
 * An identity server whose certificate this computer refuses says what is wrong and what fixes it, as the Order
 * Service client's certificate problems do, where the admin read "Could not reach the identity server (fetch failed:
 * self-signed certificate…)" and looked for an outage. This process does not trust test/fixtures/tls.
 */

const fixture = (name: string) =>
  readFileSync(fileURLToPath(new URL(`../../../test/fixtures/tls/${name}`, import.meta.url)));

let server: { close(done: () => void): unknown } | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

async function discoveryError(issuer: string): Promise<AuthError> {
  try {
    await IdentityServer.discover(issuer, 'rx-batch');
  } catch (err) {
    return toAuthError(err);
  }
  throw new Error('expected discovery to fail');
}

describe("the identity server's certificate problems", () => {
  it('a self-signed certificate: unreachable (tried again later), saying what to trust or check, nothing sent', async () => {
    let requests = 0;
    const https = createServer({ cert: fixture('localhost.crt'), key: fixture('localhost.key') }, (_req, res) => {
      requests += 1;
      res.end('{}');
    });
    server = https;
    await new Promise<void>((resolve) => https.listen(0, '127.0.0.1', resolve));
    const error = await discoveryError(`https://localhost:${(https.address() as AddressInfo).port}/`);
    expect(error.code).toBe('unreachable');
    expect(error.message).toBe(
      "The identity server's certificate is self-signed, so this computer does not trust it: if this environment uses its own certificate, add it (or its authority) to this computer's trusted certificates; otherwise check the issuer address; nothing was sent (DEPTH_ZERO_SELF_SIGNED_CERT).",
    );
    expect(requests).toBe(0);
  });

  it('an https issuer that answers plain HTTP says so', async () => {
    const http = createHttpServer((_req, res) => res.end('{}'));
    server = http;
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const error = await discoveryError(`https://localhost:${(http.address() as AddressInfo).port}/`);
    expect(error.code).toBe('unreachable');
    expect(error.message).toMatch(
      /^The address does not answer in HTTPS \(perhaps it serves plain HTTP, or it is another port\): check the issuer address; nothing was sent/,
    );
  });
});
