import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const child = fileURLToPath(new URL('./testing/warm-tls-child.ts', import.meta.url));
const cert = fileURLToPath(new URL('../../../test/fixtures/tls/localhost.crt', import.meta.url));

/** The child's report: each request's status (or failure), TLS connections the server accepted, requests on each. */
async function warmHttps(host: string, trusted: boolean) {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', child, host], {
    env: { ...process.env, ...(trusted ? { NODE_EXTRA_CA_CERTS: cert } : { NODE_EXTRA_CA_CERTS: '' }) },
    timeout: 30_000,
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as {
    results: unknown[];
    connections: number;
    warm: number;
    requests: number[];
  };
}

describe('warm connections over HTTPS', () => {
  it('verify the certificate and the name, and carry one request each', async () => {
    for (const host of ['localhost', '127.0.0.1']) {
      const report = await warmHttps(host, true);
      expect(report.results).toEqual(Array(10).fill(200));
      expect(report.requests).toEqual(Array(10).fill(1));
      // Requests went over connections opened ahead (how many depends on the handshakes' speed).
      expect(report.warm).toBeGreaterThanOrEqual(1);
      expect(report.connections).toBeGreaterThanOrEqual(10);
    }
  });

  it('never hand out a connection to a server whose certificate is not trusted: nothing is sent', async () => {
    const report = await warmHttps('localhost', false);
    // Every request fails before sending (a certificate error, no request reached the server).
    expect(report.results.every((r) => typeof r === 'string' && r.startsWith('failure:'))).toBe(true);
    expect(report.requests).toEqual([]);
    expect(report.warm).toBe(0);
  });
});
