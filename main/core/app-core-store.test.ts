import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createCore } from './app-core.js';
import { MemorySecretStore } from './platform/secret-store.js';
import { LOCAL_SANDBOX_DEVICE_ID, LOCAL_SANDBOX_ID } from './environments/presets.js';
import { silentLogger } from './platform/logger.js';

let dataDir: string | undefined;
afterEach(() => {
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  dataDir = undefined;
});

const options = (dir: string) => ({
  dataDir: dir,
  appVersion: '9.9.9',
  transport: 'direct' as const,
  secrets: new MemorySecretStore(),
  logger: silentLogger,
});

describe('the core and its data directory', () => {
  it('keeps environments in the store: presets seeded once, edits kept, the local sandbox re-pointed each start', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'rxbatch-core-store-'));
    const first = await createCore(options(dataDir));
    await first.services.registry.update({
      ...first.services.registry.get('cloudrx-sandbox'),
      clientId: 'supplier-client-id',
      concurrency: 4,
    });
    await first.close();

    const second = await createCore(options(dataDir));
    try {
      const environments = second.services.registry.list();
      expect(environments.map((e) => e.id)).toEqual([
        LOCAL_SANDBOX_ID,
        LOCAL_SANDBOX_DEVICE_ID,
        'cloudrx-sandbox',
        'cloudrx-production',
      ]);
      expect(second.services.registry.get('cloudrx-sandbox')).toMatchObject({
        clientId: 'supplier-client-id',
        concurrency: 4,
      });
      // The stored profile points at this run's sandbox.
      expect((await second.handlers['connection.check']({ environmentId: LOCAL_SANDBOX_ID })).api.reachable).toBe(true);
    } finally {
      await second.close();
    }
  });

  it('refuses a second core on the same data directory, naming the PID that has it', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'rxbatch-core-store-'));
    const core = await createCore({ ...options(dataDir), startLocalSandbox: false });
    try {
      await expect(createCore({ ...options(dataDir), startLocalSandbox: false })).rejects.toThrow(
        `is already open by PID ${process.pid}`,
      );
    } finally {
      await core.close();
    }
    const again = await createCore({ ...options(dataDir), startLocalSandbox: false });
    await again.close();
  });
});
