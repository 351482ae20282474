import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../main/core/store/store.js';
import { NO_FAULTS } from '../../sandbox/faults.js';
import { startSandbox, type RunningSandbox } from '../../sandbox/index.js';
import {
  enqueue,
  expectEachCreatedOnce,
  removeDir,
  sampleOrders,
  storeForSandbox,
  tempDataDir,
} from './support/outbox-fixture.js';

/**
 * The crash test: a child process submits 1,000 orders to a sandbox with latency and commit-then-drop faults; it
 * is SIGKILLed at random moments at least ten times and restarted each time; a last run goes to idle with the
 * faults off. The sandbox must hold exactly one order per clinicOrderId, every local order must be created with
 * the sandbox's id, and the audit chain must verify.
 *
 * The child runs as `node --import tsx …` rather than through `npx tsx`: those start the script in a grandchild,
 * and a SIGKILL to the wrapper would leave the real submitter running (and holding the store).
 */

const ORDERS = 1_000;
const KILLS = 12;
/** Orders the child must have created in a round before it may be killed (12 × 25 is past ORDERS / 4). */
const MIN_ORDERS_PER_ROUND = 25;
const CHILD = fileURLToPath(new URL('./crash-child.ts', import.meta.url));

let sandbox: RunningSandbox;
const dataDir = tempDataDir('rx-crash-');
const children = new Set<ChildProcess>();

beforeAll(async () => {
  sandbox = await startSandbox({ statusStepMs: 3_600_000, faults: { latencyMs: 4, commitThenDropRate: 0.05 } });
});

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await sandbox?.close();
  removeDir(dataDir);
});

interface ChildRun {
  child: ChildProcess;
  /** Resolves on the child's "ready" line, or when it exits first. */
  ready: Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

function startChild(): ChildRun {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      CHILD,
      dataDir,
      sandbox.apiUrl,
      sandbox.issuer,
      sandbox.serviceClient.clientId,
      sandbox.serviceClient.clientSecret,
    ],
    { cwd: fileURLToPath(new URL('../..', import.meta.url)), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  children.add(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) =>
    child.once('exit', (code, signal) => {
      children.delete(child);
      resolve({ code, signal, stderr });
    }),
  );
  const ready = new Promise<void>((resolve) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('ready\n')) resolve();
    });
    void exited.then(() => resolve());
  });
  return { child, ready, exited };
}

/**
 * A random moment 150–750 ms after the child is ready, and no sooner than it has created a few orders this round,
 * so most kills land with creates in flight. Waiting for progress as well as time keeps the batch going out under
 * the kills on a loaded machine too, where a child spends its first few hundred ms starting up.
 */
async function killMoment(run: ChildRun, ordersBefore: number): Promise<void> {
  const delay = new Promise((resolve) => setTimeout(resolve, 150 + Math.random() * 600));
  const deadline = Date.now() + 20_000;
  while (
    run.child.exitCode === null &&
    sandbox.listOrders().length < ordersBefore + MIN_ORDERS_PER_ROUND &&
    Date.now() < deadline
  ) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await delay;
}

describe('crash test', () => {
  it('kill -9 at random moments, restart each time: every order reaches the service exactly once', async () => {
    const setUp = storeForSandbox(sandbox, dataDir);
    const orders = sampleOrders('CRASH', ORDERS);
    enqueue(setUp, orders);
    setUp.store.close();

    let kills = 0;
    for (let round = 0; round < KILLS; round += 1) {
      const run = startChild();
      const before = sandbox.listOrders().length;
      await run.ready;
      await killMoment(run, before);
      if (run.child.exitCode === null && run.child.kill('SIGKILL')) kills += 1;
      const { signal, code, stderr } = await run.exited;
      expect({ signal, code, stderr: signal === 'SIGKILL' ? '' : stderr }).toMatchObject(
        signal === 'SIGKILL' ? { signal: 'SIGKILL' } : { code: 0 },
      );
    }
    expect(kills).toBeGreaterThanOrEqual(10);
    // Most of the batch went out under the faults and the kills, not in the calm final run.
    expect(sandbox.listOrders().length).toBeGreaterThan(ORDERS / 4);

    sandbox.setFaults(NO_FAULTS);
    const last = startChild();
    const { code, stderr } = await last.exited;
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });

    const store = openStore({ dataDir });
    try {
      expect(sandbox.listOrders()).toHaveLength(ORDERS);
      expectEachCreatedOnce(
        sandbox,
        store,
        orders.map((o) => o.clinicOrderId),
      );
      // The kills did land mid-send, and answers lost after commit were found by lookup, not sent again.
      const actions = store.audit.page(0, 1_000_000).map((row) => row.action);
      expect(actions.filter((a) => a === 'order.interrupted').length).toBeGreaterThan(0);
      expect(actions.filter((a) => a === 'order.reconciled').length).toBeGreaterThan(0);
    } finally {
      store.close();
    }
  }, 150_000);
});
