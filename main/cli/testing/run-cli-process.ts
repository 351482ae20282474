import { spawn, type ChildProcess } from 'node:child_process';
import type { RunningSandbox } from '../../../sandbox/index.js';
import { join } from 'node:path';

/** The CLI as a scheduler runs it: a real child process (node + tsx), its exit code and its output. */

export const REPO_ROOT = join(import.meta.dirname, '../../..');
const ENTRY = join(REPO_ROOT, 'main/cli.ts');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `stdin`: text piped to the CLI's standard input, then closed; without it, standard input is empty. */
export function startCli(args: string[], env: NodeJS.ProcessEnv = {}, options: { stdin?: string } = {}): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', ENTRY, ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env, NO_COLOR: '1' },
    stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  if (options.stdin !== undefined) child.stdin?.end(options.stdin);
  return child;
}

/** Resolves when the process exits; kills it (and fails) if it takes longer than `timeoutMs`. */
export function finished(child: ChildProcess, timeoutMs = 60_000): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`CLI did not finish in ${timeoutMs} ms; stderr: ${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export function runCli(args: string[], timeoutMs?: number): Promise<CliRun> {
  return finished(startCli(args), timeoutMs);
}

/** Resolves with the first stdout line of a still-running process. */
export function firstLine(child: ChildProcess, timeoutMs = 30_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(() => reject(new Error('no output from the CLI in time')), timeoutMs);
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const end = buffered.indexOf('\n');
      if (end >= 0) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        resolve(buffered.slice(0, end));
      }
    };
    child.stdout?.on('data', onData);
  });
}

/** `env add NAME` for a sandbox's service client (client credentials), as an admin's set-up script runs it. */
export function envAddArgs(
  name: string,
  sandbox: Pick<RunningSandbox, 'apiUrl' | 'issuer' | 'serviceClient'>,
): string[] {
  const { apiUrl, issuer, serviceClient } = sandbox;
  return [
    'env',
    'add',
    name,
    '--api',
    apiUrl,
    '--issuer',
    issuer,
    '--client-id',
    serviceClient.clientId,
    // Joined with `=`: a random secret may start with "-", which would otherwise read as the next option.
    `--client-secret=${serviceClient.clientSecret}`,
  ];
}
