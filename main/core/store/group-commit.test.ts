import type * as fs from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { GroupCommit } from './group-commit.js';
import { openStore, type Store } from './store.js';
import { LOCAL, removeDir, tempDataDir } from './testing/store-fixtures.js';

/**
 * The fsync of the WAL can be made to fail (as a disk reports EIO), to check that commits it was to cover are
 * never taken for durable. Everything else in node:fs is the real thing.
 */
const fsyncControl = vi.hoisted(() => ({ fail: false, calls: 0 }));
vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof fs>();
  return {
    ...actual,
    fsync: (fd: number, callback: (error: NodeJS.ErrnoException | null) => void) => {
      fsyncControl.calls += 1;
      if (fsyncControl.fail) {
        setImmediate(() => callback(Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' })));
        return;
      }
      actual.fsync(fd, callback);
    },
  };
});

describe('group commit', () => {
  let store: Store | undefined;
  let dataDir: string | undefined;

  function setUp(): { store: Store; group: GroupCommit; dataDir: string } {
    dataDir = tempDataDir('rx-group-');
    store = openStore({ dataDir });
    return { store, group: new GroupCommit(store), dataDir };
  }

  /** A write the test can find again: an environment row. */
  function addEnvironment(s: Store, id: string): void {
    s.environments.upsert({ ...LOCAL, id, name: `Environment ${id}` });
  }

  afterEach(() => {
    fsyncControl.fail = false;
    if (store?.isOpen) store.close();
    if (dataDir) removeDir(dataDir);
    store = undefined;
    dataDir = undefined;
  });

  it('commits at once (visible, numbered) and counts a commit durable only after a sync started after it', async () => {
    const { store, group } = setUp();
    const first = group.commit(() => addEnvironment(store, 'env-a'));
    expect(store.environments.get('env-a')).toBeDefined();
    expect(group.isDurable(first.commit)).toBe(false);

    const syncing = group.sync();
    // Committed while that fsync runs: not covered by it.
    const second = group.commit(() => addEnvironment(store, 'env-b'));
    await syncing;
    expect(group.isDurable(first.commit)).toBe(true);
    expect(group.isDurable(second.commit)).toBe(false);
    expect(group.allDurable()).toBe(false);

    await group.sync();
    expect(group.isDurable(second.commit)).toBe(true);
    expect(group.allDurable()).toBe(true);
  });

  it('leaves the connection as it was: synchronous=FULL, the usual checkpoint size, also when the work throws', () => {
    const { store, group } = setUp();
    const usual = store.db.pragma('wal_autocheckpoint', { simple: true }) as number;
    let inside: unknown[] = [];
    group.commit(() => {
      inside = [
        store.db.pragma('synchronous', { simple: true }),
        store.db.pragma('wal_autocheckpoint', { simple: true }),
      ];
    });
    // NORMAL (1) and a larger checkpoint size inside; FULL (2) and the usual size after.
    expect(inside).toEqual([1, 4 * usual]);
    expect(store.db.pragma('synchronous', { simple: true })).toBe(2);
    expect(store.db.pragma('wal_autocheckpoint', { simple: true })).toBe(usual);

    expect(() =>
      group.commit(() => {
        addEnvironment(store, 'env-rolled-back');
        throw new Error('the work failed');
      }),
    ).toThrow('the work failed');
    expect(store.environments.get('env-rolled-back')).toBeUndefined();
    expect(store.db.pragma('synchronous', { simple: true })).toBe(2);
    expect(store.db.pragma('wal_autocheckpoint', { simple: true })).toBe(usual);
  });

  it('refuses to run inside another transaction (its commit would be the outer one, with another mode)', () => {
    const { store, group } = setUp();
    expect(() => store.inTransaction(() => group.commit(() => addEnvironment(store, 'env-nested')))).toThrow(
      /cannot run inside another transaction/,
    );
    expect(store.environments.get('env-nested')).toBeUndefined();
  });

  it('keeps what it committed across closing and reopening the store', () => {
    const { store: first, group, dataDir } = setUp();
    group.commit(() => addEnvironment(first, 'env-kept'));
    group.checkpoint();
    group.close();
    first.close();
    store = openStore({ dataDir });
    expect(store.environments.get('env-kept')).toBeDefined();
  });

  it('after a failed fsync never counts the commits it was to cover as durable; later commits are synchronous', async () => {
    const { store, group } = setUp();
    const lost = group.commit(() => addEnvironment(store, 'env-lost'));
    fsyncControl.fail = true;
    await expect(group.sync()).rejects.toThrow(/EIO/);
    fsyncControl.fail = false;

    expect(group.isDurable(lost.commit)).toBe(false);
    // Given up on, so nobody waits for it forever.
    expect(group.allDurable()).toBe(true);

    const callsBefore = fsyncControl.calls;
    const later = group.commit(() => addEnvironment(store, 'env-later'));
    expect(group.isDurable(later.commit)).toBe(true);
    await group.sync();
    expect(fsyncControl.calls).toBe(callsBefore);
    expect(group.isDurable(lost.commit)).toBe(false);
  });
});
