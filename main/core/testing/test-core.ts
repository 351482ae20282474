import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RxBatchApi } from '../../../shared/contract.js';
import { createDirectApi } from '../../transport/direct-api.js';
import { createCore, type Core, type CoreOptions } from '../app-core.js';
import { MemorySecretStore } from '../platform/secret-store.js';
import { silentLogger } from '../platform/logger.js';

/**
 * A core as the app builds it, for tests that go through the contract: secrets in memory, no log output, no local
 * sandbox and no running outbox unless the test asks (`options` override any of it).
 */
export async function openCore(
  dataDir: string,
  options: Partial<CoreOptions> = {},
): Promise<{ core: Core; api: RxBatchApi }> {
  const core = await createCore({
    dataDir,
    appVersion: '9.9.9',
    transport: 'direct',
    secrets: new MemorySecretStore(),
    logger: silentLogger,
    startLocalSandbox: false,
    startOutbox: false,
    ...options,
  });
  return { core, api: createDirectApi(core.handlers, core.events) };
}

export interface TestCore {
  core: Core;
  api: RxBatchApi;
  /** The temporary folder holding `dataDir`; removed by `close`. */
  dir: string;
  dataDir: string;
  close(): Promise<void>;
}

/** `openCore` on a fresh temporary data directory named after `prefix`; `close` closes the core and removes it. */
export async function openTestCore(prefix: string, options: Partial<CoreOptions> = {}): Promise<TestCore> {
  const dir = mkdtempSync(join(tmpdir(), `rxbatch-${prefix}-`));
  const dataDir = join(dir, 'data');
  const { core, api } = await openCore(dataDir, options);
  return {
    core,
    api,
    dir,
    dataDir,
    close: async () => {
      await core.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
