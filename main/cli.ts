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

const code = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  signal: controller.signal,
});
process.exitCode = code;
