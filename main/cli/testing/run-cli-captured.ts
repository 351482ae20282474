import { Writable } from 'node:stream';
import { runCli } from '../run.js';

export interface CapturedRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the CLI's commands in this process, exactly as the `rx-batch` entry runs them, with an empty environment and
 * its output collected; `signal` stands for SIGINT/SIGTERM (already aborted: the command is stopped at once).
 */
export async function runCliCaptured(args: string[], signal = new AbortController().signal): Promise<CapturedRun> {
  const out = { stdout: '', stderr: '' };
  const sink = (key: 'stdout' | 'stderr') =>
    new Writable({
      write(chunk: Buffer | string, _encoding, done) {
        out[key] += chunk.toString();
        done();
      },
    });
  const code = await runCli(args, { stdout: sink('stdout'), stderr: sink('stderr'), env: {}, signal });
  return { code, ...out };
}
