import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LOCK_FILE, PID_FILE, StoreLockedError } from './data-dir-lock.js';
import { LATEST_SCHEMA_VERSION } from './migrations/index.js';
import { openStore, STORE_FILE, type Store } from './store.js';
import { LOCAL, removeDir, sampleOrder, tempDataDir } from './testing/store-fixtures.js';

const mode = (path: string) => statSync(path).mode & 0o777;

describe('openStore', () => {
  const dirs: string[] = [];
  const stores: Store[] = [];
  const newDir = () => {
    const dir = tempDataDir();
    dirs.push(dir);
    return dir;
  };
  const open = (dataDir: string) => {
    const store = openStore({ dataDir });
    stores.push(store);
    return store;
  };

  afterEach(() => {
    for (const store of stores.splice(0)) store.close();
    for (const dir of dirs.splice(0)) removeDir(dir);
  });

  it('creates a private data directory and private database files', () => {
    const dataDir = join(newDir(), 'nested', 'user-data');
    const store = open(dataDir);
    // Write something so the WAL and shared-memory files certainly exist.
    store.environments.upsert(LOCAL);

    expect(mode(dataDir)).toBe(0o700);
    for (const name of [STORE_FILE, `${STORE_FILE}-wal`, `${STORE_FILE}-shm`, LOCK_FILE, PID_FILE]) {
      expect(existsSync(join(dataDir, name)), name).toBe(true);
      expect(mode(join(dataDir, name)), name).toBe(0o600);
    }
  });

  it('tightens a data directory and database file that were left readable by others', () => {
    const dataDir = newDir();
    chmodSync(dataDir, 0o755);
    writeFileSync(join(dataDir, STORE_FILE), '');
    chmodSync(join(dataDir, STORE_FILE), 0o644);

    open(dataDir);

    expect(mode(dataDir)).toBe(0o700);
    expect(mode(join(dataDir, STORE_FILE))).toBe(0o600);
  });

  it('runs with WAL, synchronous=FULL and foreign keys, at the latest schema', () => {
    const store = open(newDir());
    expect(store.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(store.db.pragma('synchronous', { simple: true })).toBe(2);
    expect(store.db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(store.schemaVersion).toBe(LATEST_SCHEMA_VERSION);
  });

  it('enforces foreign keys: an order cannot name a batch that does not exist', () => {
    const store = open(newDir());
    store.environments.upsert(LOCAL);
    expect(() => store.orders.enqueue(404, [sampleOrder()])).toThrow(/no import batch 404/);
    expect(() =>
      store.batches.create({
        environmentId: 'nowhere',
        sourceFileName: 'a.csv',
        kind: 'csv',
        rowCount: 1,
        invalidCount: 0,
      }),
    ).toThrow(/FOREIGN KEY/);
  });

  it('keeps what was written across close and reopen', () => {
    const dataDir = newDir();
    const first = openStore({ dataDir });
    first.environments.upsert(LOCAL);
    first.close();

    const second = open(dataDir);
    expect(second.environments.get(LOCAL.id)?.name).toBe(LOCAL.name);
  });

  it('refuses a second open of the same data directory in the same process, naming this PID', () => {
    const dataDir = newDir();
    open(dataDir);
    let refusal: unknown;
    try {
      openStore({ dataDir });
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(StoreLockedError);
    expect((refusal as Error).message).toBe(
      `Rx Batch data in ${dataDir} is already open by PID ${process.pid}. One program at a time uses a data folder: stop that one first, or give this one another folder.`,
    );
  });

  it('names the program that holds the data directory, as it named itself, in printable text only', () => {
    const dataDir = newDir();
    stores.push(openStore({ dataDir, owner: 'rx-batch serve' }));
    const refusal = () => {
      try {
        openStore({ dataDir });
      } catch (error) {
        return error as StoreLockedError;
      }
      throw new Error('the second open was not refused');
    };
    expect(refusal()).toMatchObject({ pid: process.pid, owner: 'rx-batch serve' });
    expect(refusal().message).toContain(`is already open by PID ${process.pid} (rx-batch serve). One program`);
    // The PID file is another program's: what it says is shown, but never control characters or a screenful.
    writeFileSync(join(dataDir, PID_FILE), `${process.pid}\n\u001b]0;owned\u0007rx-batch ${'x'.repeat(200)}\n`);
    const owner = refusal().owner!;
    expect(owner).toMatch(/^\]0;ownedrx-batch x+$/);
    expect(owner).toHaveLength(80);
  });

  it('releases the data directory on close (twice is harmless) and removes its PID file', () => {
    const dataDir = newDir();
    const store = openStore({ dataDir });
    expect(readFileSync(join(dataDir, PID_FILE), 'utf8').trim()).toBe(String(process.pid));
    store.close();
    store.close();
    expect(store.isOpen).toBe(false);
    expect(existsSync(join(dataDir, PID_FILE))).toBe(false);

    const again = open(dataDir);
    expect(again.isOpen).toBe(true);
  });

  it('releases the lock when opening fails, so the next attempt can succeed', () => {
    const dataDir = newDir();
    mkdirSync(join(dataDir, STORE_FILE)); // a directory where the database file should be
    expect(() => openStore({ dataDir })).toThrow();
    removeDir(join(dataDir, STORE_FILE));
    expect(open(dataDir).isOpen).toBe(true);
  });
});
