import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toWireJson } from '../../shared/wire-json.js';
import { startSandbox, type RunningSandbox } from '../../sandbox/index.js';
import { sampleCreateWithClinic } from '../../test/support/orders.js';
import { openStore } from '../core/store/store.js';
import { runCliCaptured } from './testing/run-cli-captured.js';
import { envAddArgs } from './testing/run-cli-process.js';

/**
 * `rx-batch retry` releases orders the outbox held (here: the service answered 403 for a locked-out patient) back to
 * the queue through the app's "retry now", without sending; `submit` then sends them.
 */

const CLINIC = 'RETRY-CLINIC';

interface StatusRow {
  id: number;
  environmentId: string;
  clinicOrderId: string;
  state: string;
}

interface AuditLine {
  actor: string;
  action: string;
  orderId: number | null;
}

describe('rx-batch retry', () => {
  let sandbox: RunningSandbox;
  let dir: string;
  let dataDir: string;
  const cli = (...args: string[]) => runCliCaptured([...args, '--data-dir', dataDir]);

  async function states(): Promise<Map<string, string>> {
    const rows = JSON.parse((await cli('status', '--env', 'sbx', '--json')).stdout) as StatusRow[];
    return new Map(rows.map((row) => [row.clinicOrderId, row.state]));
  }

  async function audit(): Promise<AuditLine[]> {
    const exported = await cli('log', 'export', '--format', 'jsonl', '--unmask');
    return exported.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as AuditLine);
  }

  async function importAndAccept(environmentId: string, name: string, orders: unknown[]): Promise<void> {
    const file = join(dir, name);
    writeFileSync(file, toWireJson(orders));
    const imported = await cli('import', file, '--env', environmentId, '--json');
    expect(imported.code).toBe(0);
    const { batchId } = JSON.parse(imported.stdout) as { batchId: number };
    expect(await cli('accept', String(batchId))).toMatchObject({ code: 0 });
  }

  beforeAll(async () => {
    sandbox = await startSandbox({
      statusStepMs: 3_600_000,
      lockedOutPatients: [{ surname: 'Lockhart', dateOfBirth: '1980-01-15' }],
    });
    dir = mkdtempSync(join(tmpdir(), 'rxbatch-cli-retry-'));
    dataDir = join(dir, 'data');
    expect(await cli(...envAddArgs('sbx', sandbox))).toMatchObject({ code: 0 });
    // A second environment with the same clinic order id, accepted but never sent: the id alone is ambiguous.
    const spare = envAddArgs('spare', sandbox).filter((arg) => !arg.startsWith('--client-secret'));
    expect(await cli(...spare)).toMatchObject({ code: 0 });

    const rejected = sampleCreateWithClinic({ clinicCode: CLINIC, clinicOrderId: 'REJ-1' });
    await importAndAccept('sbx', 'orders.json', [
      sampleCreateWithClinic({ clinicCode: CLINIC, clinicOrderId: 'LOCK-A', surname: 'Lockhart' }),
      sampleCreateWithClinic({ clinicCode: CLINIC, clinicOrderId: 'LOCK-B', surname: 'Lockhart' }),
      sampleCreateWithClinic({ clinicCode: CLINIC, clinicOrderId: 'OK-1' }),
      // Refused by the service (it delivers to the UK only).
      { ...rejected, deliveryAddress: { ...rejected.deliveryAddress, postCode: '75001', countryCode: 'FRA' } },
    ]);
    const submitted = await cli('submit', '--env', 'sbx', '--until-idle');
    expect(submitted.code).toBe(1);
    expect(await states()).toEqual(
      new Map([
        ['LOCK-A', 'held'],
        ['LOCK-B', 'held'],
        ['OK-1', 'created'],
        ['REJ-1', 'rejected'],
      ]),
    );
    await importAndAccept('spare', 'spare.json', [
      sampleCreateWithClinic({ clinicCode: CLINIC, clinicOrderId: 'LOCK-A' }),
    ]);
  }, 60_000);

  afterAll(async () => {
    await sandbox?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('refuses an id that is in several environments, naming them, and releases none of the ids given', async () => {
    const run = await cli('retry', 'LOCK-B', 'LOCK-A');
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      `clinic order id LOCK-A is in sbx / ${CLINIC}, spare / ${CLINIC}: say which with --env and --clinic\n`,
    );
    expect(run.stdout).toBe('');
    expect((await states()).get('LOCK-B')).toBe('held');
  });

  it('refuses usage and input errors with exit 2 and one clear line, releasing nothing', async () => {
    const cases: Array<[string[], string]> = [
      [['retry'], 'rx-batch retry takes CLINIC_ORDER_ID... or --held --env ENV'],
      [['retry', '--held'], '--held needs --env ENV'],
      [['retry', 'LOCK-B', '--held', '--env', 'sbx'], 'give CLINIC_ORDER_ID... or --held, not both'],
      [['retry', 'LOCK-B', '--env', ''], '--env was given an empty value'],
      [['retry', 'NOPE', '--env', 'sbx'], 'no order has clinic order id NOPE in sbx'],
      [['retry', 'LOCK-B', '--env', 'nowhere'], 'there is no environment "nowhere"'],
      [['retry', 'X'.repeat(65)], 'CLINIC_ORDER_ID is 1 to 64 characters, not 65'],
      [['retry', '--held', '--env', 'sbx', '--reason', 'x'], "rx-batch retry has no option '--reason'"],
    ];
    for (const [args, message] of cases) {
      const run = await cli(...args);
      expect({ args, code: run.code }).toEqual({ args, code: 2 });
      expect(run.stderr).toContain(message);
    }
    expect((await states()).get('LOCK-B')).toBe('held');
  });

  it('releases the named held and rejected orders as the app does, says which were not held, and exits 1', async () => {
    // LOCK-A's send once got no clear answer (as the outbox remembers it), between CLI runs: the service may have it,
    // so it is released to be looked up first.
    const store = openStore({ dataDir });
    const lockA = store.orders.list({ clinicOrderId: 'LOCK-A' })[0]!;
    store.outboxQueue.markWasInDoubt(lockA.id);
    // Sent a minute ago: past the listing grace, so the lookup's miss is believed when submit runs.
    store.db
      .prepare(
        "UPDATE attempts SET started_at = strftime('%Y-%m-%dT%H:%M:%fZ', started_at, '-60 seconds') WHERE order_id = ?",
      )
      .run(lockA.id);
    store.close();
    const run = await cli('retry', 'LOCK-A', 'OK-1', 'REJ-1', '--env', 'sbx');
    expect(run.code).toBe(1);
    const lines = run.stdout.trim().split('\n');
    expect(lines[0]).toMatch(new RegExp(`^LOCK-A \\(order \\d+, sbx / ${CLINIC}\\): released \\(it was held\\)`));
    expect(lines[0]).toContain(
      'to be looked up first (a send of it once got no clear answer), and sent again only if the service does not have it',
    );
    expect(lines[1]).toMatch(/^OK-1 \(order \d+, sbx \/ RETRY-CLINIC\): not held: it is created$/);
    expect(lines[2]).toMatch(/^REJ-1 \(order \d+, sbx \/ RETRY-CLINIC\): released \(it was rejected\): queued again$/);
    expect(lines[3]).toBe(
      '2 orders released, not sent; rx-batch submit --env sbx --until-idle (or serve --env sbx) sends them.',
    );
    expect(await states()).toEqual(
      new Map([
        ['LOCK-A', 'in_doubt'],
        ['LOCK-B', 'held'],
        ['OK-1', 'created'],
        ['REJ-1', 'queued'],
      ]),
    );
    // The app's audit entry, with the admin as actor; none for the order that was not held.
    const ids = new Map(
      (JSON.parse((await cli('status', '--json')).stdout) as StatusRow[])
        .filter((row) => row.environmentId === 'sbx')
        .map((row) => [row.clinicOrderId, row.id]),
    );
    const retried = (await audit()).filter((entry) => entry.action === 'order.retry-now');
    expect(retried).toEqual([
      expect.objectContaining({ actor: 'user', orderId: ids.get('LOCK-A') }),
      expect.objectContaining({ actor: 'user', orderId: ids.get('REJ-1') }),
    ]);
  });

  it('releases every held order of the environment with --held, in JSON too; then submit sends them', async () => {
    const run = await cli('retry', '--held', '--env', 'sbx', '--json');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      released: 1,
      orders: [
        {
          orderId: expect.any(Number) as unknown,
          environmentId: 'sbx',
          clinicCode: CLINIC,
          clinicOrderId: 'LOCK-B',
          outcome: 'released',
          from: 'held',
          state: 'queued',
        },
      ],
      sentBy: ['rx-batch submit --env sbx --until-idle (or serve --env sbx)'],
    });
    expect(await cli('retry', '--held', '--env', 'sbx')).toMatchObject({
      code: 0,
      stdout: 'No held orders in sbx.\n',
    });

    const heldBefore = (await audit()).filter((entry) => entry.action === 'order.held').length;
    expect((await cli('submit', '--env', 'sbx', '--until-idle')).code).toBe(1);
    // Sent again and refused again: the patient is still locked out, the address still French.
    expect(await states()).toEqual(
      new Map([
        ['LOCK-A', 'held'],
        ['LOCK-B', 'held'],
        ['OK-1', 'created'],
        ['REJ-1', 'rejected'],
      ]),
    );
    expect((await audit()).filter((entry) => entry.action === 'order.held')).toHaveLength(heldBefore + 2);
  }, 30_000);
});
