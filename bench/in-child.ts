import { fork } from 'node:child_process';

/**
 * Runs `file` (a benchmark module, through tsx) in a fresh child process with `args`, and resolves with the last
 * message it sent once it exits 0: a measurement that starts from a clean process, holding nothing of the
 * benchmarks run before it. `name` says which measurement failed.
 */
export function inChild<T>(file: string, args: readonly string[], name: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = fork(file, [...args], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    let result: T | undefined;
    child.on('message', (message) => (result = message as T));
    child.on('error', reject);
    child.on('exit', (code) =>
      result !== undefined && code === 0 ? resolve(result) : reject(new Error(`${name} failed (exit ${code})`)),
    );
  });
}
