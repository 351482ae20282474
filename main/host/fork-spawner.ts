import { fork, type ChildProcess } from 'node:child_process';
import type { HostChannel, HostSpawner } from './core-client.js';
import { coreHostEntry, entryExecArgv } from './host-entry.js';

/** A host process as Node's child_process gives it, seen through the client's HostChannel. */
export function childChannel(child: ChildProcess): HostChannel {
  let ended: { code: number | null; signal: string | null } | undefined;
  const exitListeners: Array<(code: number | null, signal: string | null) => void> = [];
  const end = (code: number | null, signal: string | null) => {
    if (ended) return;
    ended = { code, signal };
    for (const listener of exitListeners.splice(0)) listener(code, signal);
  };
  child.once('exit', (code, signal) => end(code, signal));
  // A child that could not be started at all has no pid and no 'exit' to follow.
  child.on('error', () => {
    if (child.pid === undefined) end(null, null);
  });
  return {
    get pid() {
      return child.pid;
    },
    send(message) {
      if (ended || !child.connected) return false;
      // A failed send is followed by the child's exit, which ends its calls.
      child.send(message, undefined, undefined, () => {});
      return true;
    },
    onMessage: (listener) => void child.on('message', listener),
    onExit(listener) {
      if (ended) {
        const { code, signal } = ended;
        queueMicrotask(() => listener(code, signal));
      } else exitListeners.push(listener);
    },
    kill: () => void child.kill('SIGKILL'),
  };
}

export interface ForkSpawnerOptions {
  /** Default: core-host.js or core-host.ts beside this file. */
  entry?: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** The child's standard output and error. Default inherit (its logs go through the protocol anyway). */
  output?: 'inherit' | 'ignore' | 'pipe';
}

/** Browser mode's and the tests' spawner: `child_process.fork` of the host entry, JSON over the IPC channel. */
export function forkSpawner(options: ForkSpawnerOptions = {}): HostSpawner {
  const entry = options.entry ?? coreHostEntry(import.meta.url);
  const output = options.output ?? 'inherit';
  return () =>
    childChannel(
      fork(entry, [], {
        execArgv: entryExecArgv(entry),
        stdio: ['ignore', output, output, 'ipc'],
        serialization: 'json',
        ...(options.env ? { env: options.env } : {}),
        ...(options.cwd ? { cwd: options.cwd } : {}),
      }),
    );
}
