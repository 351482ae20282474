import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { runCliCaptured } from '../../../main/cli/testing/run-cli-captured.js';
import { envAddArgs } from '../../../main/cli/testing/run-cli-process.js';
import { startSandbox, type RunningSandbox } from '../../../sandbox/index.js';
import { removeDir, tempDataDir } from '../../outbox/support/outbox-fixture.js';

/**
 * For a file of `serve` tests: a sandbox, and a data directory where the CLI has added it as environment `sbx`,
 * set up before the file's tests and closed and removed after them. `root` holds the data directory and whatever
 * else the tests make (folders to watch, TLS files).
 */
export function sandboxEnvPerFile(prefix: string): { root: string; data: string } {
  const root = tempDataDir(prefix);
  const data = join(root, 'data');
  let sandbox: RunningSandbox | undefined;
  beforeAll(async () => {
    sandbox = await startSandbox({ statusStepMs: 3_600_000 });
    expect((await runCliCaptured([...envAddArgs('sbx', sandbox), '--data-dir', data])).code).toBe(0);
  }, 60_000);
  afterAll(async () => {
    await sandbox?.close();
    removeDir(root);
  });
  return { root, data };
}
