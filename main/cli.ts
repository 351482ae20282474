import { runCli } from './cli/run.js';

/**
 * `rx-batch` / `npm run cli -- …`: the headless entry, for scheduled runs and for checking the core without a
 * window. SIGINT/SIGTERM ask the running command to wind down (a device sign-in is cancelled, the submitter
 * lets requests in flight settle) so the store always closes cleanly; a second signal exits at once.
 */
const controller = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (controller.signal.aborted) process.exit(1);
    controller.abort(new Error(`interrupted by ${signal}`));
  });
}

// A reader that goes away (`rx-batch batch show 1 --json | head`) is not a crash: wind down as on SIGINT, so the
// store still closes cleanly; other output errors stay fatal.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    if (!controller.signal.aborted) controller.abort(new Error('the output was closed'));
  });
}

const code = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  signal: controller.signal,
  stdin: process.stdin,
});
process.exitCode = code;
