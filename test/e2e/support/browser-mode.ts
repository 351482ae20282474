import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { LAUNCHER_FILE } from '../../../main/bridge/launcher-file.js';

export const REPO_ROOT = resolve(import.meta.dirname, '../../..');

export interface BrowserModeApp {
  /** The printed address, with the launch secret in its fragment. */
  url: string;
  origin: string;
  port: number;
  secret: string;
  dataDir: string;
  /** The folder the host was started with `--import-dir`: files in it can be imported by path. */
  importDir: string;
  /**
   * The token of the local sandbox's admin routes (`/__sandbox/orders`, `/__sandbox/faults`): the app turns them on
   * only because this helper sets `RXBATCH_SANDBOX_ADMIN=1`, and writes the token to a 0600 file in its data
   * directory, read from there.
   */
  sandboxAdminToken: string;
  /** The host process, for what other local users could see of it (/proc). */
  pid: number;
  /** What the host has printed on its standard output so far. */
  printed(): string;
  stop(): Promise<void>;
}

const READY_LINE = /^Rx Batch is running at (http:\/\/127\.0\.0\.1:(\d+))\/$/;
/** The address in the launcher file the host writes (0600) instead of printing its secret. */
const LAUNCHER_LINK = /<a href="(http:\/\/127\.0\.0\.1:\d+\/#secret=([A-Za-z0-9_-]+))">/;

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  }
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

/**
 * Starts browser mode exactly as `npm run start:browser` does after its build (the CLI under tsx, against the
 * built renderer in out/renderer), with a fresh data directory, and waits for the line with its address.
 * `env` adds variables, such as `RXBATCH_SANDBOX_STEP_MS` for the local sandbox's status pace. The local sandbox's
 * admin routes are on (`RXBATCH_SANDBOX_ADMIN=1`: tests read what arrived at the service and switch its faults).
 */
export async function startBrowserMode(
  options: {
    env?: Record<string, string>;
    args?: string[];
    open?: boolean;
    /** A data directory from an earlier start (a restart): kept when this app stops; default a fresh one, removed. */
    dataDir?: string;
  } = {},
): Promise<BrowserModeApp> {
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'rxbatch-e2e-')));
  // The one folder files may be imported from by path (as `--import-dir` allows an admin's folder).
  const importDir = await mkdtemp(join(tmpdir(), 'rxbatch-e2e-import-'));
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'main/bridge/cli.ts',
      ...(options.open ? [] : ['--no-open']),
      '--port',
      '0',
      '--data-dir',
      dataDir,
      '--import-dir',
      importDir,
      ...(options.args ?? []),
    ],
    {
      cwd: REPO_ROOT,
      // `open`: the host opens the browser as for a person (it never does when CI is set).
      env: { ...process.env, CI: options.open ? '' : '1', RXBATCH_SANDBOX_ADMIN: '1', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const stderr: string[] = [];
  child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString('utf8')));
  const tail = () => stderr.join('').slice(-2000);

  const printed: string[] = [];
  let ready = false;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const { code, signal } = await exited(child);
    if (options.dataDir === undefined) await rm(dataDir, { recursive: true, force: true });
    await rm(importDir, { recursive: true, force: true });
    // A clean shutdown on SIGTERM is part of the CLI's contract (the core closes its database and sandbox).
    if (ready && code !== 0) throw new Error(`browser mode did not shut down cleanly (${code ?? signal}):\n${tail()}`);
  };

  try {
    const match = await new Promise<RegExpExecArray>((resolvePromise, reject) => {
      const lines = createInterface({ input: child.stdout });
      lines.on('line', (line) => {
        printed.push(line);
        const found = READY_LINE.exec(line.trim());
        if (found) resolvePromise(found);
      });
      child.once('exit', (code) => reject(new Error(`browser mode exited (${code}) before it was ready:\n${tail()}`)));
    });
    ready = true;
    const [, origin = '', port = ''] = match;
    const launcher = LAUNCHER_LINK.exec(await readFile(join(dataDir, LAUNCHER_FILE), 'utf8'));
    const [, url = '', secret = ''] = launcher ?? [];
    if (!url.startsWith(`${origin}/`)) throw new Error(`no launch address in ${LAUNCHER_FILE}`);
    const sandboxAdminToken = (await readFile(join(dataDir, 'local-sandbox', 'admin-token'), 'utf8')).trim();
    return {
      url,
      origin,
      port: Number(port),
      secret,
      pid: child.pid ?? 0,
      importDir,
      printed: () => printed.join('\n'),
      dataDir,
      sandboxAdminToken,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
