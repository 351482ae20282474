import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { LOCAL_SANDBOX_ID } from '../main/core/environments/presets.js';
import { writeTemplateCsv } from '../main/core/importing/template-csv.js';
import { CoreClient } from '../main/host/core-client.js';
import { forkSpawner } from '../main/host/fork-spawner.js';
import type { CallResult } from '../shared/transport-protocol.js';
import { benchmarkOrder, writeInChunks } from './import-benchmark.js';
import { inChild } from './in-child.js';

/**
 * Issue #14's responsiveness benchmark: does the UI side stay answered while the core works hard? The core runs as
 * the app runs it, in its own process (the core host, forked as browser mode forks it) with the embedded sandbox
 * service. While it imports a 100,000-row CSV (50,000 orders of two items), accepts the 50,000 orders and submits
 * them all, a child process of this file, standing where the UI's side stands, calls `environments.list` every 10 ms through the
 * same client the shells use, and watches its own event loop.
 *
 * Reported per phase: the cheap call's p50 / p99 / worst answer time (targets: p99 ≤ 100 ms, worst ≤ 250 ms) and
 * the longest stall of that process's event loop (target ≤ 50 ms). The sandbox runs inside the core host (the
 * app's default start), so its work competes with the core's: the worst case for the core's loop.
 */

export interface PhaseFigures {
  phase: string;
  ms: number;
  calls: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

export interface ResponsivenessResult {
  orders: number;
  rows: number;
  phases: PhaseFigures[];
  /** The UI-side (child) process's longest event-loop stall over the whole run. */
  uiStallMaxMs: number;
  /** Worst and p99 over every phase together. */
  p99Ms: number;
  maxMs: number;
}

const PING_EVERY_MS = 10;

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

function valueOf<T>(result: CallResult, call: string): T {
  if (!result.ok) throw new Error(`${call} failed: ${result.error.code} ${result.error.message}`);
  return result.value as T;
}

/**
 * Calls `environments.list` every 10 ms (a new call starts 10 ms after the last one started, or at once when it
 * answered later than that: a slow answer is not hidden by calls piling up behind it), one at a time.
 */
function startPinger(client: CoreClient): { take(): number[]; stop(): Promise<void> } {
  let times: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      valueOf(await client.call('environments.list', {}), 'environments.list');
      times.push(performance.now() - started);
      const wait = PING_EVERY_MS - (performance.now() - started);
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
  })();
  return {
    take() {
      const taken = times;
      times = [];
      return taken;
    },
    async stop() {
      running = false;
      await loop;
    },
  };
}

/**
 * Writes the CSV here, then measures in a fresh child process of this file: the UI side is a process of its own in
 * the app (renderer, Electron main or browser mode's host), which never held a 33 MB file's making nor, under
 * `npm run bench`, the earlier benchmarks' heaps, whose collection would show up as its stalls.
 */
export async function runResponsivenessBenchmark(
  options: { orders?: number; itemsPerOrder?: number } = {},
): Promise<ResponsivenessResult> {
  const orders = options.orders ?? 50_000;
  const itemsPerOrder = options.itemsPerOrder ?? 2;
  const dir = await mkdtemp(join(tmpdir(), 'rx-responsiveness-'));
  try {
    const importDir = join(dir, 'import');
    await mkdir(importDir);
    await writeInChunks(join(importDir, CSV_NAME), orders, (from, to) => {
      const csv = writeTemplateCsv(
        Array.from({ length: to - from }, (_, i) => benchmarkOrder(from + i, itemsPerOrder)),
      );
      return from === 0 ? csv : csv.slice(csv.indexOf('\n') + 1);
    });
    const figures = await inChild<Figures>(
      fileURLToPath(import.meta.url),
      ['--measure', dir, String(orders)],
      'the responsiveness measurement',
    );
    return { orders, rows: orders * itemsPerOrder, ...figures };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const CSV_NAME = 'orders.csv';
type Figures = Omit<ResponsivenessResult, 'orders' | 'rows'>;

/** The UI side's part: the core host started, the pinger running through the import, the accept and the submit. */
async function measure(dir: string, orders: number): Promise<Figures> {
  const importDir = join(dir, 'import');
  const csvPath = join(importDir, CSV_NAME);
  const client = new CoreClient({
    spawn: forkSpawner(),
    start: {
      dataDir: join(dir, 'data'),
      appVersion: '0.0.0',
      transport: 'direct',
      secrets: 'memory',
      importPaths: { kind: 'folders', folders: [importDir] },
      desktop: false,
      localSandbox: { start: true },
      startOutbox: true,
      // The environment's own pace tops out at 100 a second (a courtesy to a real service); here the point is the
      // core's load, so the submitter runs as fast as the sandbox answers.
      outboxTuning: { concurrency: 4, ratePerSecond: 100_000 },
    },
  });
  const stall = monitorEventLoopDelay({ resolution: 5 });
  const phases: PhaseFigures[] = [];
  const all: number[] = [];
  await client.start();
  try {
    // The host answers for the sandbox environment before anything is measured (the outbox signs in by itself).
    valueOf(await client.call('signin.status', { environmentId: LOCAL_SANDBOX_ID }), 'signin.status');
    stall.enable();
    const pinger = startPinger(client);
    const phase = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
      pinger.take();
      const started = performance.now();
      const value = await work();
      const ms = performance.now() - started;
      const times = pinger.take().sort((a, b) => a - b);
      all.push(...times);
      phases.push({
        phase: name,
        ms: Math.round(ms),
        calls: times.length,
        p50Ms: round(percentile(times, 50)),
        p99Ms: round(percentile(times, 99)),
        maxMs: round(times.at(-1) ?? Number.NaN),
      });
      return value;
    };
    const staged = await phase('import', async () =>
      valueOf<{ status: string; batchId?: number; valid?: number }>(
        await client.call('import.file', { environmentId: LOCAL_SANDBOX_ID, path: csvPath }),
        'import.file',
      ),
    );
    if (staged.status !== 'staged' || staged.batchId === undefined || staged.valid !== orders) {
      throw new Error(`the import did not stage ${orders} valid orders: ${JSON.stringify(staged)}`);
    }
    const batchId = staged.batchId;
    await phase('accept', async () => valueOf(await client.call('batches.accept', { batchId }), 'batches.accept'));
    await phase('submit', async () => {
      for (;;) {
        const progress = valueOf<{ counts: Record<string, number> }>(
          await client.call('outbox.progress', { environmentId: LOCAL_SANDBOX_ID }),
          'outbox.progress',
        );
        if ((progress.counts['created'] ?? 0) >= orders) return;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    });
    await pinger.stop();
    stall.disable();
  } finally {
    await client.stop();
  }
  all.sort((a, b) => a - b);
  return {
    phases,
    uiStallMaxMs: round(stall.max / 1e6),
    p99Ms: round(percentile(all, 99)),
    maxMs: round(all.at(-1) ?? Number.NaN),
  };
}

const round = (ms: number) => Math.round(ms * 10) / 10;

const entry = process.argv[1] ? pathToFileURL(process.argv[1]).href : '';
if (import.meta.url === entry && process.argv[2] === '--measure') {
  measure(process.argv[3]!, Number(process.argv[4])).then(
    (figures) => process.send!(figures, () => process.exit(0)),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
} else if (import.meta.url === entry) {
  runResponsivenessBenchmark().then(
    (result) => console.log(JSON.stringify(result, null, 2)),
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
