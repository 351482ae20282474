import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { GroupCommit } from './group-commit.js';
import { openStore, type Store } from './store.js';
import { LOCAL, removeDir, tempDataDir } from './testing/store-fixtures.js';
import { WalCheckpointer } from './wal-checkpointer.js';

describe('WAL checkpoints on a thread of their own', () => {
  let store: Store | undefined;
  let dataDir: string | undefined;

  afterEach(() => {
    if (store?.isOpen) store.close();
    if (dataDir) removeDir(dataDir);
    store = undefined;
    dataDir = undefined;
  });

  it('copy what the commits wrote into the database file, and close their connection so the WAL goes at close', async () => {
    dataDir = tempDataDir('rx-checkpointer-');
    store = openStore({ dataDir });
    const s = store;
    // Commits that never checkpoint themselves at this size (16 × 1,000 pages).
    const group = new GroupCommit(s, { checkpointFactor: 16 });
    const checkpointer = new WalCheckpointer(s.file, { intervalMs: 10 });
    for (let i = 0; i < 300; i += 1) {
      group.commit(() => s.environments.upsert({ ...LOCAL, id: `env-${i}`, name: `Environment ${i}` }));
    }
    checkpointer.nudge();
    await vi.waitFor(() => expect(checkpointer.stats.checkpoints).toBeGreaterThan(0), { timeout: 5000 });
    expect(checkpointer.stats.lastFrames).toBeGreaterThanOrEqual(300);
    expect(checkpointer.stats.lastCopied).toBe(checkpointer.stats.lastFrames);
    // Nothing left for the committing connection to copy.
    const row = s.db.pragma('wal_checkpoint(PASSIVE)', { simple: false }) as Array<{
      log: number;
      checkpointed: number;
    }>;
    expect(row[0]!.checkpointed).toBe(row[0]!.log);

    group.close();
    await checkpointer.close();
    checkpointer.nudge(); // after close: nothing
    s.close();
    // The store's connection was the last one: SQLite checkpointed and removed the WAL as it closed.
    expect(existsSync(`${s.file}-wal`)).toBe(false);
  });

  it('reports a worker that cannot open the file, and then does nothing', async () => {
    dataDir = tempDataDir('rx-checkpointer-');
    const errors: string[] = [];
    const checkpointer = new WalCheckpointer(join(dataDir, 'missing.sqlite'), { onError: (m) => errors.push(m) });
    await vi.waitFor(() => expect(errors.length).toBe(1), { timeout: 5000 });
    checkpointer.nudge();
    await checkpointer.close();
    expect(checkpointer.stats.checkpoints).toBe(0);
  });
});
