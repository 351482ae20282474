import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toWireJson } from '../../shared/wire-json.js';
import { sampleCreateWithClinic } from '../../test/support/orders.js';
import { LOCAL_SANDBOX_DIR } from '../core/local-sandbox.js';
import { ADDRESSES_FILE } from '../core/sandbox-addresses.js';
import { runCli } from './testing/run-cli-process.js';

// The local sandbox runs in the app, and nothing of ours listens on its remembered ports while the app is closed
// (the CLI holds the data directory then). So `rx-batch submit --env local-sandbox`, and `serve` as the Intake
// screen advises it, reached a port nobody served, or one another local user's program took, and sent it the
// sandbox client's secret and the orders. A CLI command that talks to it starts it now, as the app does.

interface StatusRow {
  clinicOrderId: string;
  state: string;
  pharmacyOrderId: number | null;
}

describe('the CLI and the local sandbox', () => {
  let dir: string;
  let dataDir: string;
  const impostors: Server[] = [];
  const cli = (...args: string[]) => runCli([...args, '--data-dir', dataDir]);

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'rxbatch-cli-local-'));
    dataDir = join(dir, 'data');
  });

  afterAll(async () => {
    await Promise.all(impostors.map((server) => new Promise((resolve) => server.close(resolve))));
    rmSync(dir, { recursive: true, force: true });
  });

  it('starts the local sandbox for the commands that talk to it, never sending to whoever holds its old ports', async () => {
    // A fresh data directory: login starts the sandbox, signs in with its service account, and remembers its ports.
    const login = await cli('login', 'local-sandbox');
    expect(login).toMatchObject({ code: 0, stdout: 'Signed in to local-sandbox.\n' });
    const ports = JSON.parse(readFileSync(join(dataDir, LOCAL_SANDBOX_DIR, ADDRESSES_FILE), 'utf8')) as {
      apiPort: number;
      identityPort: number;
    };

    // Another program now holds both ports, answering whatever comes.
    const heard: string[] = [];
    for (const port of [ports.apiPort, ports.identityPort]) {
      const server = createServer((req, res) => {
        heard.push(`${req.method} ${req.url}`);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"orderId": 1}');
      });
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
      impostors.push(server);
    }

    const orders = [
      sampleCreateWithClinic({ clinicCode: 'LOCAL-CLI' }),
      sampleCreateWithClinic({ clinicCode: 'LOCAL-CLI' }),
    ];
    const file = join(dir, 'orders.json');
    writeFileSync(file, toWireJson(orders));
    const imported = await cli('import', file, '--env', 'local-sandbox', '--json');
    expect(imported.code).toBe(0);
    const { batchId } = JSON.parse(imported.stdout) as { batchId: number };
    expect((await cli('accept', String(batchId))).code).toBe(0);
    const submitted = await cli('submit', '--env', 'local-sandbox', '--until-idle');
    expect(submitted).toMatchObject({ code: 0 });
    expect(submitted.stdout).toContain('Done.');

    // Created at the local sandbox (on other ports this time), and nothing went to the program on the old ones.
    const rows = JSON.parse(
      (await cli('status', '--refresh', '--env', 'local-sandbox', '--json')).stdout,
    ) as StatusRow[];
    expect(rows.map((row) => [row.clinicOrderId, row.state])).toEqual(
      expect.arrayContaining(orders.map((order) => [order.prescription.clinicOrderId, 'created'])),
    );
    expect(rows.every((row) => typeof row.pharmacyOrderId === 'number')).toBe(true);
    expect(heard).toEqual([]);
  }, 120_000);
});
