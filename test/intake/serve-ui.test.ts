import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { LAUNCHER_FILE } from '../../main/bridge/launcher-file.js';
import { dataDirHolder } from '../../main/bridge/serve-handoff.js';
import {
  envAddArgs,
  finished,
  REPO_ROOT,
  runCli,
  startCli,
  type CliRun,
} from '../../main/cli/testing/run-cli-process.js';
import { writeRde011 } from '../../main/core/importing/rde-writer.js';
import { uniqueOrder } from '../../main/core/staging/testing/staging-fixtures.js';
import { BridgeSocket } from '../../renderer/src/api/bridge-socket.js';
import { apiOverTransport } from '../../renderer/src/api/api-over-transport.js';
import { ContractError } from '../../shared/errors.js';
import { BRIDGE_SOCKET_PATH, POLICY_VIOLATION } from '../../shared/transport-protocol.js';
import { startSandbox, type RunningSandbox } from '../../sandbox/index.js';
import { sendWithLibrary } from '../support/hl7-client.js';
import { isChallenge, pageHandshake } from '../support/bridge-handshake-client.js';
import { removeDir, tempDataDir } from '../outbox/support/outbox-fixture.js';

// Issue #17: while `rx-batch serve --ui` runs, the admin sees and reviews its intake through browser mode's bridge
// over serve's own core (one writer of the store), with every check the bridge makes; the app started on that data
// directory opens serve's launcher instead of being refused.

let sandbox: RunningSandbox;
const root = tempDataDir('rx-serve-ui-');
const data = join(root, 'data');
// The CLI's tests run before the page is built: a stand-in page (the bridge serves whatever the build holds).
const page = join(root, 'renderer');

beforeAll(async () => {
  mkdirSync(page, { recursive: true });
  writeFileSync(join(page, 'index.html'), '<!doctype html><title>Rx Batch</title>');
  sandbox = await startSandbox({ statusStepMs: 3_600_000 });
  expect((await runCli([...envAddArgs('sbx', sandbox), '--data-dir', data])).code).toBe(0);
}, 60_000);

afterEach(() => vi.unstubAllGlobals());

afterAll(async () => {
  await sandbox?.close();
  removeDir(root);
});

/** Starts serve and resolves with its ready lines (up to and including `last`). */
async function startServe(args: string[], last: RegExp) {
  const child = startCli(['serve', '--env', 'sbx', ...args, '--data-dir', data], { RXBATCH_RENDERER_DIR: page });
  const done = finished(child, 90_000);
  const lines = await new Promise<string[]>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const ready = out.split('\n').slice(0, -1);
      if (ready.some((line) => last.test(line))) resolve(ready);
    });
    void done.then((run) => reject(new Error(`serve ended before it was ready: ${run.stderr}`)));
  });
  return { child, done, lines };
}

async function stopServe(child: ChildProcess, done: Promise<CliRun>): Promise<CliRun> {
  child.kill('SIGTERM');
  return done;
}

/** The browser mode host (`npm run start:browser`, what `npm start` falls back to) on the same data directory. */
function startBrowserHost(): Promise<CliRun> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'main/bridge/cli.ts', '--no-open', '--data-dir', data], {
    cwd: REPO_ROOT,
    env: { ...process.env, CI: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return finished(child, 60_000);
}

function get(port: number, host: string): Promise<{ status: number; csp: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path: '/', headers: { Host: host } }, (response) => {
      response.resume();
      resolve({ status: response.statusCode ?? 0, csp: response.headers['content-security-policy'] as string });
    });
    req.on('error', reject);
    req.end();
  });
}

/** A socket as any local program could open one: how the bridge answered an upgrade and a first message. */
/** Opens the bridge's socket with `headers`; sends `first`, or goes through the handshake with `secret` (right or not). */
function probe(
  port: number,
  headers: Record<string, string>,
  o: { first: object } | { secret: string },
): Promise<string> {
  return new Promise((resolve) => {
    const socket = new WebSocket(`ws://127.0.0.1:${port}${BRIDGE_SOCKET_PATH}`, { headers });
    const handshake = 'secret' in o ? pageHandshake(o.secret) : undefined;
    socket.on('unexpected-response', (_request, response) => {
      resolve(`http ${response.statusCode}`);
      socket.terminate();
    });
    socket.on('open', () => socket.send(handshake?.hello ?? JSON.stringify('first' in o ? o.first : {})));
    socket.on('message', (data: Buffer) => {
      const message = JSON.parse(data.toString('utf8')) as unknown;
      if (handshake && isChallenge(message)) {
        void handshake.reply(message, { verify: false }).then((proof) => socket.send(proof));
        return;
      }
      resolve(`answered ${data.toString('utf8').slice(0, 40)}`);
      socket.close();
    });
    socket.on('close', (code) => resolve(`closed ${code}`));
    socket.on('error', () => {});
  });
}

describe('rx-batch serve --ui', () => {
  it('serves the page over its own core: intake.status lists its listener; the bridge refuses strangers', async () => {
    const { child, done, lines } = await startServe(['--mllp', '127.0.0.1:0', '--allow', '127.0.0.1', '--ui'], /^ui: /);
    try {
      expect(lines[0]).toMatch(/^mllp: 127\.0\.0\.1:\d+$/);
      const mllp = lines[0]!.slice('mllp: '.length);
      const ui = lines.find((line) => line.startsWith('ui: '))!;
      expect(ui).toMatch(/^ui: http:\/\/127\.0\.0\.1:\d+\/$/);
      const origin = ui.slice('ui: '.length, -1);
      const port = Number(origin.split(':').at(-1));

      // The secret is only in the launcher: 0600, naming serve's PID, never in serve's output.
      const launcher = join(data, LAUNCHER_FILE);
      expect(statSync(launcher).mode & 0o777).toBe(0o600);
      const html = readFileSync(launcher, 'utf8');
      const secret = /#secret=([A-Za-z0-9_-]+)"/.exec(html)?.[1] ?? '';
      expect(secret.length).toBeGreaterThan(30);
      expect(html).toContain(`<meta name="rx-batch-pid" content="${child.pid}">`);
      expect(lines.join('\n')).not.toContain(secret);

      const [ack] = await sendWithLibrary(Number(mllp.split(':')[1]), [
        writeRde011(uniqueOrder(), { controlId: 'UI-1', sendingApplication: 'UI-EPR', sendingFacility: 'CLINIC-U' }),
      ]);
      expect(ack!.get('MSA.1')).toBe('AA');

      // The page's own client (renderer/src/api), its browser's Origin header added as a browser would.
      class PageSocket extends WebSocket {
        constructor(url: string) {
          super(url, { headers: { Origin: origin } });
        }
      }
      vi.stubGlobal('WebSocket', PageSocket);
      const transport = new BridgeSocket(`ws://127.0.0.1:${port}${BRIDGE_SOCKET_PATH}`, secret);
      const api = apiOverTransport(transport);
      try {
        expect((await api.call('app.info', {})).transport).toBe('browser');
        await vi.waitFor(
          async () => {
            const status = await api.call('intake.status', {});
            expect(status).toMatchObject({ running: true, environmentId: 'sbx', serve: { pid: child.pid } });
            expect(status.channels).toHaveLength(1);
            expect(status.channels[0]).toMatchObject({ kind: 'mllp', address: mllp, state: 'listening', received: 1 });
            // Serve's --allow reaches the page, so the Intake screen judges the listener by it too.
            expect(status.channels[0]!.allowList).toEqual({ count: 1, addresses: ['127.0.0.1'], loopbackOnly: true });
            const fed = status.channels[0]!.batches;
            expect(fed.map((batch) => batch.count)).toEqual([1]);
            expect(fed[0]!.name).toMatch(/^UI-EPR\^CLINIC-U .*\(MLLP\)$/);
          },
          { timeout: 10_000, interval: 200 },
        );
        // The day batch held for review is there to review, from serve's store.
        const batches = await api.call('batches.list', { environmentId: 'sbx' });
        expect(batches.some((batch) => batch.sourceFileName.startsWith('UI-EPR^CLINIC-U'))).toBe(true);
        // No second intake beside serve's.
        const refused: unknown = await api
          .call('intake.start', { environmentId: 'sbx', port: 0 })
          .catch((e) => e as unknown);
        expect(refused).toBeInstanceOf(ContractError);
        expect((refused as ContractError).code).toBe('forbidden');
        expect((refused as ContractError).message).toContain('The intake here is run by rx-batch serve');
        await expect(api.call('intake.stop', {})).rejects.toMatchObject({ code: 'forbidden' });
      } finally {
        transport.close();
      }

      // Every check of browser mode's bridge holds on serve's port.
      const hello = { secret };
      expect(await probe(port, { Origin: origin }, { first: { id: 1, call: 'app.info', input: {} } })).toBe(
        `closed ${POLICY_VIOLATION}`,
      );
      expect(await probe(port, { Origin: origin }, { secret: 'not-the-secret' })).toBe(`closed ${POLICY_VIOLATION}`);
      expect(await probe(port, { Origin: origin }, { first: { secret } })).toBe(`closed ${POLICY_VIOLATION}`);
      expect(await probe(port, { Origin: 'http://evil.example' }, hello)).toBe('http 403');
      expect(await probe(port, { Origin: origin, Host: `rebound.example:${port}` }, hello)).toBe('http 403');
      expect(await probe(port, { Origin: origin }, hello)).toBe('answered {"ready":true}');
      expect((await get(port, `evil.example:${port}`)).status).toBe(403);
      const own = await get(port, `127.0.0.1:${port}`);
      expect(own.status).toBe(200);
      expect(own.csp).toContain(`connect-src 'self' ws://127.0.0.1:${port}`);

      // The app started on this data directory opens serve's page instead of a core of its own.
      expect(dataDirHolder(data)).toEqual({ kind: 'serve-ui', pid: child.pid, launcher });
      const host = await startBrowserHost();
      expect(host.code).toBe(0);
      expect(host.stdout).toContain(`in use by rx-batch serve (PID ${child.pid}), which serves the app itself`);
      expect(host.stdout).toContain(`To open it, open ${launcher}`);
    } finally {
      const run = await stopServe(child, done);
      expect(run.code).toBe(0);
      expect(run.stdout.trim().split('\n').at(-1)).toMatch(/^Stopped\. intake: 1 AA/);
    }
    // Stopped with serve: the launcher goes, and the port with it.
    expect(existsSync(join(data, LAUNCHER_FILE))).toBe(false);
    expect(dataDirHolder(data)).toEqual({ kind: 'none' });
  }, 120_000);

  it('without --ui the app says to restart serve with --ui; --ui takes loopback only', async () => {
    const inbox = join(root, 'inbox');
    mkdirSync(inbox, { recursive: true });
    // A launcher a crash left behind does not count: it names another process.
    writeFileSync(join(data, LAUNCHER_FILE), '<meta name="rx-batch-pid" content="1">', { mode: 0o600 });
    const { child, done, lines } = await startServe(['--watch', inbox], /^watching: /);
    try {
      expect(lines).toEqual([`watching: ${inbox}`]);
      expect(dataDirHolder(data)).toEqual({ kind: 'serve', pid: child.pid });
      const host = await startBrowserHost();
      expect(host.code).toBe(2);
      expect(host.stderr).toContain(`in use by rx-batch serve (PID ${child.pid}), started without --ui`);
      expect(host.stderr).toContain('restart serve with --ui');
    } finally {
      expect((await stopServe(child, done)).code).toBe(0);
    }
    const wide = await runCli(['serve', '--env', 'sbx', '--watch', inbox, '--ui', '0.0.0.0:8080', '--data-dir', data]);
    expect(wide.code).toBe(2);
    expect(wide.stderr).toContain('--ui listens on 127.0.0.1 only');
  }, 90_000);
});
