import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EnrichmentRun } from '../../shared/enrichment-views.js';
import type { CreateWithClinicV1Input } from '../../shared/orders.js';
import { parseWireJson } from '../../shared/wire-json.js';
import { startSandbox, type RunningSandbox } from '../../sandbox/index.js';
import { templateCsv, uniqueOrder } from '../core/staging/testing/staging-fixtures.js';
import { openStore } from '../core/store/store.js';
import type { NotCheckedTally, ReportedWarning } from './commands/check-report.js';
import { envAddArgs, finished, runCli, startCli } from './testing/run-cli-process.js';

// `rx-batch batch check` as a scheduler or an admin runs it: real child processes on one data directory, checking
// staged batches with a real sandbox over loopback (see sandbox/catalogue.ts for its products and stock).

const TADALAFIL = '177803111000001105'; // 18 digits, stock 0 at the sandbox
const CITALOPRAM = '37356111000001105'; // stock 0
const PARACETAMOL = '322236009';
const IBUPROFEN = '39732311000001104';
const UNKNOWN = '42109611000001109'; // a valid dm+d code the sandbox does not list
/** On the environment's code lists (so the offline checks pass it) but not on the sandbox's courier list. */
const UNLISTED_COURIER = 'PFW48';
/** In stock, and asked about by no other test here (so the offline test sees codes never answered). */
const NEVER_ASKED = ['42113511000001106', '36777111000001108'];
/** For the cancel test: six in-stock codes, so a slowed service is still checking when SIGINT comes. */
const SLOW_CODES = [
  '41753111000001100',
  '39518111000001107',
  '32117111000001106',
  '34256111000001105',
  '32181111000001102',
  '31998111000001108',
];

/** Patient fields of every order here: none may appear in what the command prints. */
const PATIENT = { firstName: 'Wilhelmina', surname: 'Quibblesworth', dateOfBirth: '1961-07-23', postCode: 'YO1 7HH' };

function order(dmdCode: string, courierCode = 'RMT24'): CreateWithClinicV1Input {
  const body = uniqueOrder({ dmdCode, clinicCode: 'CHECK-CLINIC', surname: PATIENT.surname }, 'CHK');
  body.customer.firstName = PATIENT.firstName;
  body.customer.dateOfBirth = PATIENT.dateOfBirth;
  body.homeAddress = { ...body.homeAddress, postCode: PATIENT.postCode };
  body.deliveryAddress = { ...body.deliveryAddress, postCode: PATIENT.postCode };
  body.prescription.courierCode = courierCode;
  return body;
}

interface CheckDocument {
  run: EnrichmentRun;
  warnings: ReportedWarning[];
  notChecked: Record<string, NotCheckedTally>;
}

function expectNoPatientFields(text: string): void {
  for (const value of Object.values(PATIENT)) expect(text).not.toContain(value);
}

describe('rx-batch batch check', () => {
  let sandbox: RunningSandbox;
  let dir: string;
  let dataDir: string;
  let files = 0;
  const cli = (...args: string[]) => runCli([...args, '--data-dir', dataDir]);

  /** Stages the orders as one batch (every order valid) and returns its number as the CLI takes it. */
  async function stage(orders: CreateWithClinicV1Input[], env = 'sbx'): Promise<string> {
    files += 1;
    const file = join(dir, `check-${files}.csv`);
    writeFileSync(file, templateCsv(orders));
    const imported = await cli('import', file, '--env', env, '--json');
    expect({ code: imported.code, stderr: imported.stderr }).toEqual({ code: 0, stderr: '' });
    return String((JSON.parse(imported.stdout) as { batchId: number }).batchId);
  }

  beforeAll(async () => {
    sandbox = await startSandbox({ statusStepMs: 60_000 });
    dir = mkdtempSync(join(tmpdir(), 'rxbatch-cli-check-'));
    dataDir = join(dir, 'data');
    const added = await cli(...envAddArgs('sbx', sandbox));
    expect(added.code).toBe(0);
    // The clinic's own courier code list has one the service does not list; saved as the app's settings would,
    // between CLI runs (the data directory's lock is free).
    const store = openStore({ dataDir });
    const environment = store.environments.get('sbx')!;
    store.environments.upsert({
      ...environment,
      codeLists: { ...environment.codeLists, courierCodes: [...environment.codeLists.courierCodes, UNLISTED_COURIER] },
    });
    store.close();
    expect(await cli('login', 'sbx')).toMatchObject({ code: 0 });
  }, 60_000);

  afterAll(async () => {
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('names each warning by order, item and dm+d code (never a patient field), reuses answers, and asks afresh with --fresh', async () => {
    const orders = [order(TADALAFIL), order(UNKNOWN), order(PARACETAMOL, UNLISTED_COURIER), order(IBUPROFEN)];
    const batch = await stage(orders);
    const ids = orders.map((o) => o.prescription.clinicOrderId);

    const checked = await cli('batch', 'check', batch);
    expect(checked.code).toBe(1);
    const lines = checked.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(
      new RegExp(
        `^Batch ${batch} \\(check-\\d+\\.csv, sbx\\): checked 4 dm\\+d codes and 2 courier codes for 4 orders`,
      ),
    );
    expect(lines.slice(1)).toEqual([
      '3 warnings: 1 out of stock, 1 unknown code, 1 courier not listed.',
      `#1 CHECK-CLINIC ${ids[0]} item 1 dm+d ${TADALAFIL}: Out of stock at the service: Tadalafil 10mg tablets. ` +
        'The order can still be sent.',
      `#2 CHECK-CLINIC ${ids[1]} item 1 dm+d ${UNKNOWN}: The service has no product for dm+d code ${UNKNOWN}.`,
      `#3 CHECK-CLINIC ${ids[2]}: Courier code "${UNLISTED_COURIER}" is not on the service's courier list ` +
        '(RMT24, RMT48, DPD).',
    ]);
    expect(checked.stderr).toContain(`Checking batch ${batch} with sbx:`);
    expectNoPatientFields(checked.stdout + checked.stderr);

    // Within the reuse window the stored answers are used: not one request reaches the service.
    const before = sandbox.requestCount();
    const reused = await cli('batch', 'check', batch, '--json');
    expect(reused.code).toBe(1);
    expect(sandbox.requestCount()).toBe(before);
    expect(reused.stderr).toBe('');
    expectNoPatientFields(reused.stdout);
    const document = JSON.parse(reused.stdout) as CheckDocument;
    expect(document.run).toMatchObject({
      batchId: Number(batch),
      environmentId: 'sbx',
      outcome: 'complete',
      notChecked: null,
      calls: 0,
      counts: { orders: 4, codes: 4, codesUnknown: 1, codesOutOfStock: 1, courierCodesNotListed: 1, warnings: 3 },
    });
    expect(document.run.reused).toBeGreaterThan(0);
    expect(document.notChecked).toEqual({});
    expect(
      document.warnings.map((w) => [w.position, w.clinicOrderId, w.kind, w.itemIndex, w.dmdCode, w.field]),
    ).toEqual([
      [1, ids[0], 'out of stock', 0, TADALAFIL, 'prescribedItems.0.dmdCode'],
      [2, ids[1], 'unknown code', 0, UNKNOWN, 'prescribedItems.0.dmdCode'],
      [3, ids[2], 'courier not listed', null, null, 'prescription.courierCode'],
    ]);
    expect(document.warnings[0]).toMatchObject({ code: 'service.outOfStock', clinicCode: 'CHECK-CLINIC' });
    expect(Date.parse(document.warnings[0]!.checkedAt)).not.toBeNaN();

    // --fresh asks everything again; the requests the service counts are the run's own.
    const beforeFresh = sandbox.requestCount();
    const fresh = await cli('batch', 'check', batch, '--fresh', '--json');
    expect(fresh.code).toBe(1);
    const freshRun = (JSON.parse(fresh.stdout) as CheckDocument).run;
    expect(freshRun).toMatchObject({ outcome: 'complete', reused: 0 });
    expect(freshRun.calls).toBeGreaterThan(0);
    expect(sandbox.requestCount() - beforeFresh).toBe(freshRun.calls);

    // batch show --json carries the last check and what it found per order.
    const shown = parseWireJson((await cli('batch', 'show', batch, '--json')).stdout) as {
      lastCheck: EnrichmentRun;
      orders: Array<{ position: number; check: { warnings: Array<{ code: string }>; items: unknown[] } }>;
    };
    expect(shown.lastCheck).toMatchObject({ outcome: 'complete', reused: 0, calls: freshRun.calls });
    expect(shown.orders.map((o) => o.check.warnings.map((w) => w.code))).toEqual([
      ['service.outOfStock'],
      ['service.unknownCode'],
      ['service.unknownCourier'],
      [],
    ]);
  }, 120_000);

  it('exits 0 when every product is in stock and every code and courier is known', async () => {
    const batch = await stage([order(PARACETAMOL), order(IBUPROFEN, 'DPD')]);
    const checked = await cli('batch', 'check', batch);
    expect({ code: checked.code, stderr: checked.stderr }).toMatchObject({ code: 0 });
    expect(checked.stdout).toContain('No service warnings.');
    expect(checked.stdout).not.toContain('Not checked');
  }, 60_000);

  it('reports stock, prices and couriers as not checked when signed out, and says how to sign in', async () => {
    const added = await cli(
      'env',
      'add',
      'nosign',
      '--api',
      sandbox.apiUrl,
      '--issuer',
      sandbox.issuer,
      '--client-id',
      sandbox.deviceClient.clientId,
    );
    expect(added.code).toBe(0);
    const batch = await stage([order(CITALOPRAM)], 'nosign');
    const checked = await cli('batch', 'check', batch, '--json');
    expect(checked.code).toBe(1);
    const document = JSON.parse(checked.stdout) as CheckDocument;
    expect(document.run).toMatchObject({ outcome: 'partial', notChecked: 'signed-out' });
    // Product search works signed out, so the code is known; its stock is not (no out-of-stock warning).
    expect(document.warnings).toEqual([]);
    expect(document.notChecked).toEqual({ 'signed-out': { items: 1, couriers: 1, earlierAnswers: 0 } });

    const human = await cli('batch', 'check', batch);
    expect(human.code).toBe(1);
    expect(human.stdout).toContain(
      "Not checked: signed out (1 item, 1 order's courier): stock, prices and couriers need a sign-in: " +
        'rx-batch login nosign.',
    );
  }, 60_000);

  it('cancels on SIGINT, keeping the answers that came, which the next check reuses', async () => {
    const batch = await stage(SLOW_CODES.map((code) => order(code)));
    // A slow service: at the environment's pace (2 workers) the check takes several seconds.
    sandbox.setFaults({ latencyMs: 700 });
    try {
      const child = startCli(['batch', 'check', batch, '--fresh', '--data-dir', dataDir]);
      const done = finished(child);
      await new Promise<void>((resolve, reject) => {
        let stderr = '';
        const timer = setTimeout(() => reject(new Error(`no answers counted in time; stderr: ${stderr}`)), 45_000);
        child.stderr!.on('data', (chunk: Buffer) => {
          stderr += chunk.toString('utf8');
          // A progress line with at least one code (or the courier list) answered.
          if (/: [1-9]\d* of \d+ done/.test(stderr)) {
            clearTimeout(timer);
            resolve();
          }
        });
      });
      child.kill('SIGINT');
      const cancelled = await done;
      expect(cancelled.code).toBe(1);
      expect(cancelled.stdout).toContain('Cancelled: the answers that came are kept.');
      // The items the cancelled check did not get to say so, not "not asked".
      expect(cancelled.stdout).toMatch(
        new RegExp(
          `Not checked: cancelled \\(\\d+ items?[^)]*\\): the check was cancelled before these were answered; ` +
            `run rx-batch batch check ${batch} again to finish it\\.`,
        ),
      );
      expect(cancelled.stdout).not.toContain('not asked');
    } finally {
      sandbox.setFaults({ latencyMs: 0 });
    }

    const again = await cli('batch', 'check', batch, '--json');
    expect(again.code).toBe(0);
    const run = (JSON.parse(again.stdout) as CheckDocument).run;
    expect(run.outcome).toBe('complete');
    expect(run.reused).toBeGreaterThan(0);
    // Answered now: nothing reads "cancelled" any more.
    expect((JSON.parse(again.stdout) as CheckDocument).notChecked).toEqual({});
  }, 120_000);

  it('exits 2 for a batch that does not exist or a bad command line', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['batch', 'check', '424242'], /^there is no batch 424242\n$/],
      [['batch', 'check', 'latest'], /BATCH must be a batch number/],
      [['batch', 'check'], /rx-batch batch check takes BATCH/],
      [['batch', 'check', '1', '--fast'], /rx-batch batch check has no option '--fast' \(its options: --fresh\)/],
    ];
    for (const [args, message] of cases) {
      const run = await cli(...args);
      expect({ args, code: run.code, stdout: run.stdout }).toEqual({ args, code: 2, stdout: '' });
      expect(run.stderr).toMatch(message);
    }
  }, 60_000);

  // Last: it stops the sandbox.
  it('says "not checked: offline" and exits 1 when the service cannot be reached', async () => {
    const batch = await stage(NEVER_ASKED.map((code) => order(code)));
    await sandbox.close();
    const checked = await cli('batch', 'check', batch, '--fresh');
    expect(checked.code).toBe(1);
    expect(checked.stdout).toMatch(
      /^Not checked: offline \(2 items, 2 orders' couriers; 2 show earlier answers\): the service could not be reached; /m,
    );
    expect(checked.stdout).toContain(`run rx-batch batch check ${batch} again when it can.`);
    expect(checked.stdout).toContain('No service warnings.');

    const document = JSON.parse((await cli('batch', 'check', batch, '--json')).stdout) as CheckDocument;
    expect(document.run).toMatchObject({ outcome: 'partial', notChecked: 'offline' });
    expect(document.notChecked.offline).toMatchObject({ items: 2 });
  }, 60_000);
});
