import { chmodSync, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from './index.js';

/** The sandbox stores request bodies (patient data): its folder is 0700 and its SQLite files 0600. */

const mode = (path: string) => statSync(path).mode & 0o777;
const DB = 'sandbox-orders.sqlite';

let root: string | undefined;
let sandbox: RunningSandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

describe.skipIf(process.platform === 'win32')('the sandbox keeps its files private', () => {
  it('makes a new data folder 0700 and its database, -wal and -shm 0600, whatever the umask', async () => {
    root = mkdtempSync(join(tmpdir(), 'rxbatch-sandbox-perms-'));
    const dataDir = join(root, 'nested', 'sandbox');
    const umask = process.umask(0o022);
    try {
      sandbox = await startSandbox({ dataDir });
    } finally {
      process.umask(umask);
    }
    expect(mode(dataDir)).toBe(0o700);
    for (const file of [DB, `${DB}-wal`, `${DB}-shm`]) {
      expect(existsSync(join(dataDir, file)), file).toBe(true);
      expect(mode(join(dataDir, file)), file).toBe(0o600);
    }
  });

  it('tightens a folder and files an older version left readable (0755, 0644)', async () => {
    root = mkdtempSync(join(tmpdir(), 'rxbatch-sandbox-perms-'));
    const dataDir = join(root, 'sandbox');
    const first = await startSandbox({ dataDir });
    await first.close();
    chmodSync(dataDir, 0o755);
    for (const file of [DB, `${DB}-wal`, `${DB}-shm`]) {
      const path = join(dataDir, file);
      if (!existsSync(path)) writeFileSync(path, '');
      chmodSync(path, 0o644);
    }
    sandbox = await startSandbox({ dataDir });
    expect(mode(dataDir)).toBe(0o700);
    for (const file of [DB, `${DB}-wal`, `${DB}-shm`]) expect(mode(join(dataDir, file)), file).toBe(0o600);
  });
});
