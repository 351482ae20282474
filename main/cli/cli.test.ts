import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from '@playwright/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toWireJson } from '../../shared/wire-json.js';
import { completeDevicePages } from '../../sandbox/identity/device-pages-driver.js';
import { startSandbox, type RunningSandbox } from '../../sandbox/index.js';
import { launchChromium } from '../../test/support/browser.js';
import { sampleCreateWithClinic } from '../../test/support/orders.js';
import { CLI_SECRETS_FILE } from './cli-context.js';
import { envAddArgs, finished, firstLine, runCli, startCli } from './testing/run-cli-process.js';

/** A valid 18-digit dm+d code (partition 10, Verhoeff check digit), beyond JavaScript's safe integers. */
const EIGHTEEN_DIGITS = '123456781000001105';

interface StatusRow {
  id: number;
  clinicCode: string;
  clinicOrderId: string;
  state: string;
  pharmacyOrderId: number | null;
  remoteStatus: string | null;
}

// The CLI end to end, each command a real child process on one data directory, against a real sandbox.
describe('the rx-batch CLI', () => {
  let sandbox: RunningSandbox;
  let dir: string;
  let dataDir: string;
  let browser: Browser;
  const cli = (...args: string[]) => runCli([...args, '--data-dir', dataDir]);
  const envAddArgsWithoutSecret = (name: string) =>
    envAddArgs(name, sandbox).filter((arg) => !arg.startsWith('--client-secret'));

  beforeAll(async () => {
    [sandbox, browser] = await Promise.all([startSandbox({ statusStepMs: 60_000 }), launchChromium()]);
    dir = mkdtempSync(join(tmpdir(), 'rxbatch-cli-'));
    dataDir = join(dir, 'data');
  });

  afterAll(async () => {
    await Promise.all([sandbox.close(), browser.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  function writeOrders(name: string, orders: unknown[]): string {
    const file = join(dir, name);
    writeFileSync(file, toWireJson(orders));
    return file;
  }

  it('runs a batch end to end: env add, login, import, accept, submit, status, cancel, log verify and export', async () => {
    const secret = sandbox.serviceClient.clientSecret;
    const added = await cli(...envAddArgs('sbx', sandbox));
    expect(added).toMatchObject({ code: 0 });
    expect(added.stdout).toContain('Environment sbx added (client_credentials');
    expect(added.stdout + added.stderr).not.toContain(secret);
    const secretsFile = join(dataDir, CLI_SECRETS_FILE);
    expect(statSync(secretsFile).mode & 0o777).toBe(0o600);

    expect(await cli('login', 'sbx')).toMatchObject({ code: 0, stdout: 'Signed in to sbx.\n' });

    const orders = [
      sampleCreateWithClinic({ clinicCode: 'CLI-CLINIC', dmdCode: EIGHTEEN_DIGITS }),
      sampleCreateWithClinic({ clinicCode: 'CLI-CLINIC' }),
      sampleCreateWithClinic({ clinicCode: 'CLI-CLINIC' }),
      { ...sampleCreateWithClinic({ clinicCode: 'CLI-CLINIC' }), deliveryAddress: { city: 'Leeds' } },
    ];
    const file = writeOrders('orders.json', orders);
    const imported = await cli('import', file, '--env', 'sbx', '--json');
    expect(imported.code).toBe(1); // one order needs fixing
    const summary = JSON.parse(imported.stdout) as Record<string, number>;
    expect(summary).toEqual({ batchId: expect.any(Number) as unknown, orders: 4, valid: 3, invalid: 1, notOrders: 0 });
    expect(imported.stderr).toContain(`${file}: order 4: deliveryAddress.address1:`);

    // The invalid order stays staged for fixing, so accept says so and exits 1.
    const accepted = await cli('accept', String(summary.batchId));
    expect(accepted.code).toBe(1);
    expect(accepted.stdout).toContain('Accepted 3 orders');
    expect(accepted.stdout).toContain('1 order stays staged');
    const submitted = await cli('submit', '--env', 'sbx', '--until-idle');
    expect(submitted.code).toBe(0);
    expect(submitted.stdout).toContain('Done.');

    const status = await cli('status', '--json');
    expect(status.code).toBe(0);
    const rows = JSON.parse(status.stdout) as StatusRow[];
    expect(rows).toHaveLength(3);
    const atService = new Map(sandbox.listOrders().map((o) => [o.clinicOrderId, o]));
    expect(atService.size).toBe(3);
    for (const row of rows) {
      expect(row).toMatchObject({ clinicCode: 'CLI-CLINIC', state: 'created', remoteStatus: null });
      expect(row.pharmacyOrderId).toBe(atService.get(row.clinicOrderId)?.pharmacyOrderId);
    }
    // The 18-digit dm+d code went out digit for digit.
    const first = atService.get(orders[0]!.prescription.clinicOrderId)!;
    expect(first.rawBody).toContain(`"dmdCode":${EIGHTEEN_DIGITS}`);

    const refreshed = JSON.parse((await cli('status', '--refresh', '--json')).stdout) as StatusRow[];
    expect(refreshed.map((r) => r.remoteStatus)).toEqual(Array(3).fill('Waiting Payment Success'));

    const target = rows[1]!;
    const cancelled = await cli('cancel', target.clinicOrderId, '--reason', 'Clinic cancelled the prescription');
    expect(cancelled.code).toBe(0);
    expect(cancelled.stdout).toContain('cancel queued');
    expect(await cli('submit', '--env', 'sbx', '--until-idle')).toMatchObject({ code: 0 });
    const afterCancel = JSON.parse((await cli('status', '--refresh', '--json')).stdout) as StatusRow[];
    expect(afterCancel.find((r) => r.id === target.id)).toMatchObject({
      state: 'cancelled',
      remoteStatus: 'Cancelled',
    });
    expect(sandbox.listOrders().find((o) => o.clinicOrderId === target.clinicOrderId)?.status).toBe('Cancelled');

    const verified = await cli('log', 'verify');
    expect(verified.code).toBe(0);
    expect(verified.stdout).toMatch(/^Audit log OK: \d+ entries/);

    const csv = join(dir, 'audit.csv');
    expect(await cli('log', 'export', '--format', 'csv', '--out', csv)).toMatchObject({ code: 0 });
    const text = readFileSync(csv, 'utf8');
    expect(statSync(csv).mode & 0o777).toBe(0o600);
    expect(text.split('\r\n')[0]).toMatch(/^seq,at,actor,action,/);
    expect(text).toContain('batch.imported');
    expect(text).toContain('order.cancel-confirmed');
    for (const row of rows) {
      expect(text).not.toContain(row.clinicOrderId);
      expect(text).toContain(row.clinicOrderId.slice(-3));
    }
    expect(text).not.toContain(secret);
    const jsonl = await cli('log', 'export', '--format', 'jsonl', '--unmask');
    expect(jsonl.stdout).toContain(target.clinicOrderId);
  }, 120_000);

  it('takes the client secret from a named environment variable, so it stays out of the process list', async () => {
    const added = await finished(
      startCli(
        [...envAddArgsWithoutSecret('from-env'), '--client-secret-env', 'RXB_TEST_SECRET', '--data-dir', dataDir],
        {
          RXB_TEST_SECRET: sandbox.serviceClient.clientSecret,
        },
      ),
    );
    expect(added).toMatchObject({ code: 0 });
    expect(added.stdout).toContain('Environment from-env added (client_credentials');
    expect(added.stdout + added.stderr).not.toContain(sandbox.serviceClient.clientSecret);
    expect(await cli('login', 'from-env')).toMatchObject({ code: 0, stdout: 'Signed in to from-env.\n' });
  }, 60_000);

  it('exits 1 when the service rejects an order, and says which', async () => {
    // Valid offline (a French address is well formed), refused by the service (it delivers to the UK only).
    const sample = sampleCreateWithClinic({ clinicCode: 'CLI-CLINIC' });
    const bad = writeOrders('bad-country.json', [
      { ...sample, deliveryAddress: { ...sample.deliveryAddress, postCode: '75001', countryCode: 'FRA' } },
    ]);
    const imported = JSON.parse((await cli('import', bad, '--env', 'sbx', '--json')).stdout) as { batchId: number };
    expect(await cli('accept', String(imported.batchId))).toMatchObject({ code: 0 });
    const submitted = await cli('submit', '--env', 'sbx', '--until-idle');
    expect(submitted.code).toBe(1);
    expect(submitted.stderr).toContain('attention:');
    const status = await cli('status');
    expect(status.code).toBe(1);
    expect(status.stdout).toMatch(/rejected .*country/i);
  }, 60_000);

  it('exits 2 on usage and input errors, with one clear line', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['accept', 'last'], /BATCH must be a batch number/],
      [['submit'], /--env is required/],
      [['submit', '--env', 'nowhere'], /there is no environment "nowhere"/],
      [['import', join(dir, 'missing.json'), '--env', 'sbx'], /missing\.json: not found/],
      [['log', 'export', '--format', 'xml'], /--format must be csv or jsonl/],
      [['cancel', 'NO-SUCH-ORDER', '--reason', 'x'], /no open order has clinic order id NO-SUCH-ORDER/],
      [['status', '--frobnicate'], /rx-batch status has no option '--frobnicate' \(its options: /],
      [
        ['env', 'add', 'Bad Name', '--api', 'http://127.0.0.1/', '--issuer', 'http://127.0.0.1/', '--client-id', 'x'],
        /NAME: lower-case/,
      ],
      [[...envAddArgs('x', sandbox), '--client-secret-env', 'RXB_TEST_SECRET'], /not both/],
      [
        [...envAddArgsWithoutSecret('x'), '--client-secret-env', 'RXB_NOT_SET_ANYWHERE'],
        /the environment variable RXB_NOT_SET_ANYWHERE is not set or empty/,
      ],
      // A secret that starts with a dash must be joined with `=`; the message says so (and not the secret).
      [
        ['env', 'add', 'dash', '--client-id', 'x', '--client-secret', '-Dash-first-secret'],
        /use '--client-secret=-XYZ'/,
      ],
    ];
    writeFileSync(join(dir, 'not-json.json'), '{ nope');
    cases.push([['import', join(dir, 'not-json.json'), '--env', 'sbx'], /not-json\.json: The file is not JSON/]);
    for (const [args, message] of cases) {
      const run = await cli(...args);
      expect({ args, code: run.code }).toEqual({ args, code: 2 });
      expect(run.stderr).toMatch(message);
      expect(run.stderr).not.toContain('Dash-first-secret');
    }
  }, 90_000);

  it('refuses a second process on the same data directory, naming the PID that holds it', async () => {
    const daemon = startCli(['submit', '--env', 'sbx', '--data-dir', dataDir]);
    const done = finished(daemon);
    // Probe only once the daemon holds the store: an earlier probe could itself hold it and turn the daemon away.
    expect(await firstLine(daemon)).toBe('Sending and tracking sbx until interrupted (Ctrl+C).');
    let refused: Awaited<ReturnType<typeof cli>> | undefined;
    for (let i = 0; i < 40 && !refused; i += 1) {
      const run = await cli('log', 'verify');
      if (run.code === 2) refused = run;
      else await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(refused?.stderr).toContain(
      `is already open by PID ${daemon.pid} (rx-batch submit). One program at a time uses a data folder`,
    );
    daemon.kill('SIGTERM');
    const ended = await done;
    expect(ended.code).toBe(1); // interrupted, not idle
    expect(ended.stdout).toContain('Stopped.');
    expect(await cli('log', 'verify')).toMatchObject({ code: 0 });
  }, 60_000);

  it('signs in with a device code: prints the code and URL, waits for the person, then saves the sign-in', async () => {
    expect(
      await cli(
        'env',
        'add',
        'people',
        '--api',
        sandbox.apiUrl,
        '--issuer',
        sandbox.issuer,
        '--client-id',
        sandbox.deviceClient.clientId,
      ),
    ).toMatchObject({ code: 0 });
    const child = startCli(['login', 'people', '--json', '--data-dir', dataDir]);
    const prompt = JSON.parse(await firstLine(child)) as { userCode: string; verificationUriComplete: string };
    const done = finished(child);
    expect(prompt.userCode).toMatch(/^[A-Z]{4}-[A-Z]{4}$/);
    const context = await browser.newContext();
    try {
      await completeDevicePages(await context.newPage(), {
        url: prompt.verificationUriComplete,
        username: sandbox.user.username,
        password: sandbox.user.password,
        decision: 'allow',
      });
    } finally {
      await context.close();
    }
    const ended = await done;
    expect(ended.code).toBe(0);
    expect(ended.stdout.trim().split('\n').at(-1)).toBe('{"outcome":"signed-in"}');
    const environments = JSON.parse((await cli('env', 'list', '--json')).stdout) as Array<{
      id: string;
      signedIn: boolean;
    }>;
    expect(environments.find((e) => e.id === 'people')).toMatchObject({ signedIn: true });
  }, 60_000);
});
