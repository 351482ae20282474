import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createCore } from '../main/core/app-core.js';
import { MemorySecretStore } from '../main/core/platform/secret-store.js';
import { silentLogger } from '../main/core/platform/logger.js';
import { CoreClient } from '../main/host/core-client.js';
import { forkSpawner } from '../main/host/fork-spawner.js';
import { dispatchCall } from '../main/transport/dispatch.js';

/**
 * The core host's extra hop, measured once (main/host/README.md has the figures): a cheap call
 * (`environments.list`) answered by a core in this process through dispatchCall, and by the same core in a child
 * process through the host protocol (Node's fork IPC, JSON), one call at a time. Run: `npx tsx bench/host-hop.ts`.
 */

const WARMUP = 300;
const CALLS = 3_000;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

async function sample(call: () => Promise<unknown>): Promise<{ p50: number; p99: number; max: number }> {
  for (let i = 0; i < WARMUP; i += 1) await call();
  const times: number[] = [];
  for (let i = 0; i < CALLS; i += 1) {
    const started = performance.now();
    await call();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99), max: times.at(-1) ?? Number.NaN };
}

const dir = mkdtempSync(join(tmpdir(), 'rxbatch-host-hop-'));
const options = { appVersion: '0.0.0', logger: silentLogger, startLocalSandbox: false, startOutbox: false } as const;
try {
  const core = await createCore({
    ...options,
    dataDir: join(dir, 'in-process'),
    transport: 'direct',
    secrets: new MemorySecretStore(),
  });
  const inProcess = await sample(() => dispatchCall(core.handlers, 'environments.list', {}));
  await core.close();

  const client = new CoreClient({
    spawn: forkSpawner(),
    start: {
      dataDir: join(dir, 'host'),
      appVersion: '0.0.0',
      transport: 'direct',
      secrets: 'memory',
      importPaths: { kind: 'none' },
      desktop: false,
      localSandbox: { start: false },
      startOutbox: false,
    },
  });
  await client.start();
  const throughHost = await sample(() => client.call('environments.list', {}));
  await client.stop();

  const ms = (value: number) => `${value.toFixed(3)} ms`;
  console.log(`environments.list, ${CALLS} calls one at a time after ${WARMUP} to warm up`);
  for (const [label, figures] of [
    ['in process (dispatchCall)', inProcess],
    ['through the core host (fork IPC)', throughHost],
  ] as const) {
    console.log(`  ${label.padEnd(34)} p50 ${ms(figures.p50)}  p99 ${ms(figures.p99)}  max ${ms(figures.max)}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
