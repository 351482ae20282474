import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { envAddArgs, finished, runCli, startCli } from '../../main/cli/testing/run-cli-process.js';
import { acquireDataDirLock, StoreLockedError } from '../../main/core/store/data-dir-lock.js';
import { openStore, STORE_FILE } from '../../main/core/store/store.js';
import { NO_FAULTS } from '../../sandbox/faults.js';
import { startSandbox, type RunningSandbox } from '../../sandbox/index.js';
import { toWireJson } from '../../shared/wire-json.js';
import { sampleCreateWithClinic } from '../support/orders.js';

/**
 * A stopped submitter must not outlive its store. `rx-batch submit` is stopped (SIGTERM) while its creates wait on
 * a slow service: it abandons them at once (recorded in doubt, since they reached the service), closes the store,
 * and only then releases the data directory's lock and prints "Stopped."; nothing is written after that, and the
 * process exits long before the service answers. The next run looks the abandoned orders up: created once.
 */

const LATENCY_MS = 8_000;
const ORDERS = 6;

let sandbox: RunningSandbox;
let dir: string;
let dataDir: string;

beforeAll(async () => {
  sandbox = await startSandbox({ statusStepMs: 3_600_000 });
  dir = mkdtempSync(join(tmpdir(), 'rxbatch-stop-'));
  dataDir = join(dir, 'data');
});

afterAll(async () => {
  await sandbox?.close();
  rmSync(dir, { recursive: true, force: true });
});

const cli = (...args: string[]) => runCli([...args, '--data-dir', dataDir]);

/** Size and modification time of the database and its WAL and shared-memory files (absent: null). */
function storeFiles(): Record<string, { size: number; mtimeMs: number } | null> {
  const files: Record<string, { size: number; mtimeMs: number } | null> = {};
  for (const suffix of ['', '-wal', '-shm']) {
    const path = join(dataDir, `${STORE_FILE}${suffix}`);
    const stat = existsSync(path) ? statSync(path) : null;
    files[`${STORE_FILE}${suffix}`] = stat && { size: stat.size, mtimeMs: stat.mtimeMs };
  }
  return files;
}

/** Whether another process could open the data directory now (the lock is taken and given back at once). */
function lockIsFree(): boolean {
  try {
    acquireDataDirLock(dataDir).release();
    return true;
  } catch (error) {
    if (error instanceof StoreLockedError) return false;
    throw error;
  }
}

describe('stopping submit with creates in flight', () => {
  it('abandons them as in doubt, writes nothing after "Stopped.", holds the lock until its last write', async () => {
    expect(await cli(...envAddArgs('sbx', sandbox))).toMatchObject({ code: 0 });
    const orders = Array.from({ length: ORDERS }, (_, i) =>
      sampleCreateWithClinic({ clinicCode: 'STOP-CLINIC', clinicOrderId: `STOP-${i + 1}` }),
    );
    const file = join(dir, 'orders.json');
    writeFileSync(file, toWireJson(orders));
    const imported = await cli('import', file, '--env', 'sbx', '--json');
    expect(imported.code).toBe(0);
    const { batchId } = JSON.parse(imported.stdout) as { batchId: number };
    expect(await cli('accept', String(batchId))).toMatchObject({ code: 0 });

    // A slow service: every request waits LATENCY_MS before it is handled (and then stored, answer or not).
    sandbox.setFaults({ latencyMs: LATENCY_MS });
    const before = sandbox.requestCount();
    const child = startCli(['submit', '--env', 'sbx', '--until-idle', '--data-dir', dataDir]);
    const done = finished(child, 30_000);
    await vi.waitFor(() => expect(sandbox.requestCount()).toBeGreaterThan(before), { timeout: 20_000, interval: 20 });
    // Let the other slots fill too, then stop it while they wait.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(lockIsFree()).toBe(false);

    let stdout = '';
    let atStopped: ReturnType<typeof storeFiles> | undefined;
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      if (atStopped === undefined && stdout.includes('Stopped.')) atStopped = storeFiles();
    });
    let exited = false;
    void done.then(() => (exited = true));
    const signalledAt = Date.now();
    child.kill('SIGTERM');

    // Probe the lock while it stops: refused while it still works on the store; once free, the files must be final.
    let refusedWhileStopping = 0;
    let whenLockFree: ReturnType<typeof storeFiles> | undefined;
    while (!exited) {
      if (whenLockFree === undefined) {
        if (lockIsFree()) whenLockFree = storeFiles();
        else if (atStopped === undefined) refusedWhileStopping += 1;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const run = await done;
    const exitedAfterMs = Date.now() - signalledAt;
    const storedAtExit = sandbox.listOrders().length;
    const final = storeFiles();

    expect(run.code).toBe(1); // interrupted, not idle
    expect(run.stdout).toMatch(/^Stopped\. \[/m);
    expect(run.stderr).not.toMatch(/not open|failed/i);
    // It did not wait for the slow answers: it was gone before the service got round to storing anything.
    expect(exitedAfterMs).toBeLessThan(LATENCY_MS - 1_000);
    expect(storedAtExit).toBe(0);
    // No write after "Stopped.", and the lock given back only after the last write (the store closed cleanly).
    expect(atStopped).toEqual(final);
    if (whenLockFree !== undefined) expect(whenLockFree).toEqual(final);
    expect(refusedWhileStopping).toBeGreaterThan(0);
    expect(final[`${STORE_FILE}-wal`]).toBeNull();

    // The creates it abandoned may have reached the service: recorded in doubt, not put back to be sent blindly.
    const abandoned: string[] = [];
    const store = openStore({ dataDir });
    try {
      const local = store.orders.list({ environmentId: 'sbx', limit: 100 });
      expect(local).toHaveLength(ORDERS);
      expect(local.filter((o) => o.state === 'sending')).toEqual([]);
      for (const order of local.filter((o) => o.state === 'in_doubt')) {
        abandoned.push(order.clinicOrderId);
        expect(store.attempts.list(order.id).map((a) => [a.operation, a.outcome, a.errorMessage])).toEqual([
          ['create', 'in-doubt', expect.stringMatching(/stopped while waiting for the answer/) as string],
        ]);
      }
      expect(local.filter((o) => !['in_doubt', 'queued'].includes(o.state))).toEqual([]);
    } finally {
      store.close();
    }
    expect(abandoned.length).toBeGreaterThan(0);

    // The slow service does store them in the end; the next run finds them by lookup instead of sending them again.
    await vi.waitFor(
      () => expect(sandbox.listOrders().map((o) => o.clinicOrderId)).toEqual(expect.arrayContaining(abandoned)),
      { timeout: LATENCY_MS + 10_000, interval: 100 },
    );
    sandbox.setFaults(NO_FAULTS);
    const next = await cli('submit', '--env', 'sbx', '--until-idle');
    expect(next).toMatchObject({ code: 0 });
    expect(next.stdout).toMatch(/^Done\./m);

    const atService = sandbox.listOrders();
    expect(atService.map((o) => o.clinicOrderId).sort()).toEqual(
      orders.map((o) => o.prescription.clinicOrderId).sort(),
    );
    const after = openStore({ dataDir });
    try {
      for (const order of after.orders.list({ environmentId: 'sbx', limit: 100 })) {
        expect(order.state).toBe('created');
        expect(order.pharmacyOrderId).toBe(
          atService.find((o) => o.clinicOrderId === order.clinicOrderId)?.pharmacyOrderId,
        );
        if (abandoned.includes(order.clinicOrderId)) {
          expect(after.attempts.list(order.id).map((a) => `${a.operation}:${a.outcome}`)).toEqual([
            'create:in-doubt',
            'lookup:ok',
          ]);
        }
      }
    } finally {
      after.close();
    }
    expect(await cli('log', 'verify')).toMatchObject({ code: 0 });
  }, 90_000);
});
