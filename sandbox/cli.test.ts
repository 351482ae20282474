import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { connect } from 'node:net';
import { afterAll, expect, it } from 'vitest';

/** `npm run sandbox` as a script would use it: five lines on stdout, a working sandbox, a clean stop on SIGTERM. */

let child: ChildProcess | undefined;

/** The CLI runs under npx → sh → tsx → node; signalling the whole process group reaches the node process. */
function stopGroup(signal: NodeJS.Signals): void {
  if (child?.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

afterAll(() => {
  stopGroup('SIGKILL');
});

function refuses(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

it('prints exactly five lines, serves the API, identity and guarded admin routes, closes on SIGTERM', async () => {
  child = spawn('npx', ['tsx', 'sandbox/cli.ts', '--port', '0'], {
    cwd: process.cwd(),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = once(child, 'exit');

  await expect.poll(() => stdout.split('\n').length > 5, { timeout: 25_000, interval: 50 }).toBe(true);
  const lines = stdout.split('\n').slice(0, 5);
  expect(lines[0]).toMatch(/^api: http:\/\/127\.0\.0\.1:\d+\/$/);
  expect(lines[1]).toMatch(/^issuer: http:\/\/127\.0\.0\.1:\d+$/);
  expect(lines[2]).toMatch(/^device-client: \S+$/);
  expect(lines[3]).toMatch(/^service-client: \S+ \S+$/);
  expect(lines[4]).toMatch(/^admin-token: [A-Za-z0-9_-]{43}$/);

  const apiUrl = lines[0]!.slice('api: '.length);
  const issuer = lines[1]!.slice('issuer: '.length);
  const [clientId, clientSecret] = lines[3]!.slice('service-client: '.length).split(' ');
  const search = await fetch(new URL('api/v2/Product/search?searchTerm=paracetamol', apiUrl));
  expect(search.status).toBe(200);
  const tokenResponse = await fetch(`${issuer}/connect/token`, {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: clientId!,
      client_secret: clientSecret!,
      scope: 'cloudrx_orderservice',
    }),
  });
  expect(tokenResponse.status).toBe(200);
  // The admin routes are on, behind the printed token.
  const adminToken = lines[4]!.slice('admin-token: '.length);
  const orders = new URL('__sandbox/orders', apiUrl);
  expect((await fetch(orders)).status).toBe(401);
  expect((await fetch(orders, { headers: { authorization: `Bearer ${adminToken}` } })).status).toBe(200);

  stopGroup('SIGTERM');
  await exited;
  const port = Number(new URL(apiUrl).port);
  await expect.poll(() => refuses(port), { timeout: 10_000, interval: 50 }).toBe(true);
  await expect.poll(() => stderr, { timeout: 5_000 }).toContain('closing');
  // Nothing but the five lines ever reached stdout (request logs go to stderr).
  expect(stdout).toBe(`${lines.join('\n')}\n`);
});
