import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { PID_FILE, StoreLockedError } from './data-dir-lock.js';
import { openStore, type Store } from './store.js';
import { removeDir, tempDataDir } from './testing/store-fixtures.js';

const HOLDER = fileURLToPath(new URL('./testing/hold-store-open.ts', import.meta.url));
const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Starts `npx tsx hold-store-open.ts <dir>` in its own process group; resolves with the PID that opened the store. */
function startHolder(dataDir: string): { child: ChildProcess; ready: Promise<number> } {
  const child = spawn('npx', ['tsx', HOLDER, dataDir], {
    cwd: REPO_ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const ready = new Promise<number>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`holder did not start in time: ${output}`)), 25_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /ready (\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      } else if (output.includes('refused')) {
        clearTimeout(timer);
        reject(new Error(output));
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`holder exited with ${code}: ${output}`));
    });
  });
  return { child, ready };
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** The kernel drops the dead holder's lock as it exits; allow that a moment, bounded. */
async function openWhenReleased(dataDir: string): Promise<Store> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      return openStore({ dataDir });
    } catch (error) {
      if (!(error instanceof StoreLockedError) || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

describe('one process per data directory', () => {
  const dataDir = tempDataDir();
  let holder: ChildProcess | undefined;

  afterAll(async () => {
    if (holder?.pid && holder.exitCode === null && holder.signalCode === null) {
      process.kill(-holder.pid, 'SIGKILL');
      await exited(holder);
    }
    removeDir(dataDir);
  });

  it('refuses a second process with the holder PID, and recovers once the holder is killed', async () => {
    const started = startHolder(dataDir);
    holder = started.child;
    const holderPid = await started.ready;
    expect(holderPid).not.toBe(process.pid);

    let refusal: unknown;
    try {
      openStore({ dataDir });
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(StoreLockedError);
    expect((refusal as StoreLockedError).pid).toBe(holderPid);
    expect((refusal as Error).message).toMatch(
      new RegExp(`^Rx Batch data in ${dataDir} is already open by PID ${holderPid}\\. One program at a time`),
    );

    // Kill the whole group (npx, tsx and the holder) the hard way: no cleanup code runs.
    process.kill(-holder.pid!, 'SIGKILL');
    await exited(holder);
    // The crash left its PID file behind; it must not keep the data locked.
    expect(readFileSync(join(dataDir, PID_FILE), 'utf8').trim()).toBe(String(holderPid));

    const store = await openWhenReleased(dataDir);
    try {
      expect(readFileSync(join(dataDir, PID_FILE), 'utf8').trim()).toBe(String(process.pid));
      store.environments.list();
    } finally {
      store.close();
    }
  });

  it('ignores a PID file that names a live process when nobody holds the lock', () => {
    // A reused PID must not lock anyone out: this test's own parent process is alive but holds nothing here.
    writeFileSync(join(dataDir, PID_FILE), `${process.ppid}\n`);
    const store = openStore({ dataDir });
    try {
      expect(readFileSync(join(dataDir, PID_FILE), 'utf8').trim()).toBe(String(process.pid));
    } finally {
      store.close();
    }
  });
});
