import { appendFileSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../platform/logger.js';
import {
  stagingFixture,
  templateCsv,
  uniqueOrder,
  withField,
  type StagingFixture,
} from '../staging/testing/staging-fixtures.js';
import { IntakeRepo } from '../store/intake-repo.js';
import { LOCAL } from '../store/testing/store-fixtures.js';
import { FolderWatcher, type WatchedFileResult } from './folder-watcher.js';

/**
 * Anyone who can write in a watched folder can remove a file of theirs while it is being imported (docs/security.md,
 * finding 60). Its move to done/ or failed/ then failed with ENOENT, which ended the file's handling after its orders
 * were staged, and under `send` queued to be sent, but before its audit entry: orders sent with no
 * `intake.file.*` entry, and nothing on the Intake screen.
 *
 * A writer that pauses longer than a poll and then writes on: the file looked complete, was hashed and imported,
 * and grew meanwhile. The orders read were then sent while the file's recorded hash was of other bytes, and the
 * order written last was in neither the batch nor, once the file was moved to done/, any later import.
 */

let fixture: StagingFixture | undefined;
afterEach(() => {
  fixture?.close();
  fixture = undefined;
});

function setUp(removeWhileRead = true) {
  const f = (fixture = stagingFixture());
  const dir = join(f.dataDir, 'inbox');
  mkdirSync(dir);
  const results: WatchedFileResult[] = [];
  const lines: string[] = [];
  const watcher = new FolderWatcher({
    dir,
    environmentId: LOCAL.id,
    store: f.store,
    staging: f.staging,
    repo: new IntakeRepo(f.store.db, f.store.now),
    rules: { mode: 'send' },
    logger: createLogger('intake', (line) => lines.push(line)),
    onFile: (result) => results.push(result),
  });
  // The writer removes the file while the watcher reads it (the open handle reads on; the name is gone).
  const importFile = f.staging.importFile.bind(f.staging);
  f.staging.importFile = async (request) => {
    if (!removeWhileRead) return importFile(request);
    for (const name of readdirSync(dir)) if (name.endsWith('.csv')) rmSync(join(dir, name));
    return importFile(request);
  };
  return { f, dir, watcher, results, lines };
}

const queued = (f: StagingFixture) => f.store.orders.countByState(LOCAL.id).queued;

describe('a watched file removed while it is imported', () => {
  it('all valid: its orders are queued, and the file is audited and reported all the same', async () => {
    const { f, dir, watcher, results, lines } = setUp();
    writeFileSync(join(dir, 'orders.csv'), templateCsv([uniqueOrder(), uniqueOrder()]));
    await watcher.pollOnce();
    await watcher.pollOnce();
    expect(queued(f)).toBe(2);
    expect(f.store.audit.search({ action: 'intake.file.imported' })).toMatchObject([
      { details: { fileName: 'orders.csv', operation: 'send' } },
    ]);
    expect(results).toMatchObject([{ name: 'orders.csv', outcome: 'done' }]);
    expect(lines.some((line) => line.includes('removed before it could be moved'))).toBe(true);
    expect(readdirSync(join(dir, 'done'))).toEqual([]);
  });

  it('some invalid: audited as failed, with no note left for a file that is not there', async () => {
    const { f, dir, watcher, results } = setUp();
    const bad = withField(uniqueOrder(), 'homeAddress.postCode', 'NOT A POSTCODE');
    writeFileSync(join(dir, 'mixed.csv'), templateCsv([uniqueOrder(), bad]));
    await watcher.pollOnce();
    await watcher.pollOnce();
    expect(queued(f)).toBe(1);
    expect(f.store.audit.search({ action: 'intake.file.failed' })).toHaveLength(1);
    expect(results).toMatchObject([{ name: 'mixed.csv', outcome: 'failed' }]);
    expect(readdirSync(join(dir, 'failed'))).toEqual([]);
    expect(existsSync(join(dir, 'mixed.csv.errors.csv'))).toBe(false);
  });

  it('replaced while it was imported (saved by renaming a new file over it): the new file is left, then imported too', async () => {
    const { f, dir, watcher, results, lines } = setUp(false);
    const importFile = f.staging.importFile.bind(f.staging);
    let replaced = false;
    f.staging.importFile = async (request) => {
      if (!replaced) {
        // The clinic system saves again: a new file renamed over the name the watcher is reading.
        replaced = true;
        writeFileSync(join(dir, '.orders.csv.tmp'), templateCsv([uniqueOrder(), uniqueOrder(), uniqueOrder()]));
        renameSync(join(dir, '.orders.csv.tmp'), join(dir, 'orders.csv'));
      }
      return importFile(request);
    };
    writeFileSync(join(dir, 'orders.csv'), templateCsv([uniqueOrder(), uniqueOrder()]));
    await watcher.pollOnce();
    await watcher.pollOnce();
    // The first content imported; the file there now was never read, so it stays where it is.
    expect(queued(f)).toBe(2);
    expect(existsSync(join(dir, 'orders.csv'))).toBe(true);
    expect(readdirSync(join(dir, 'done'))).toEqual([]);
    expect(lines.some((line) => line.includes('replaced before it could be moved'))).toBe(true);
    for (let poll = 0; poll < 3; poll += 1) await watcher.pollOnce();
    expect(queued(f)).toBe(5);
    expect(readdirSync(join(dir, 'done'))).toEqual(['orders.csv']);
    expect(results.map((r) => r.outcome)).toEqual(['done', 'done']);
    expect(f.store.audit.search({ action: 'intake.file.imported' })).toHaveLength(2);
  });

  it('a file still there that cannot be moved still stops its handling (not audited at every poll)', async () => {
    const { f, dir, watcher } = setUp(false);
    const importFile = f.staging.importFile.bind(f.staging);
    f.staging.importFile = async (request) => {
      // done/ replaced by a plain file: the move cannot happen, and the file stays where it is.
      rmSync(join(dir, 'done'), { recursive: true });
      writeFileSync(join(dir, 'done'), '');
      return importFile(request);
    };
    writeFileSync(join(dir, 'kept.csv'), templateCsv([uniqueOrder()]));
    await watcher.pollOnce();
    await expect(watcher.pollOnce()).rejects.toThrow(/not the folder the watcher made/);
    expect(existsSync(join(dir, 'kept.csv'))).toBe(true);
    expect(f.store.audit.search({ action: 'intake.file.imported' })).toHaveLength(0);
  });
});

describe('a watched file written to while it is read', () => {
  it('is not taken as it was read: its batch is discarded, the file stays, and it is read whole once it stops changing', async () => {
    const { f, dir, watcher, results, lines } = setUp(false);
    const orders = [uniqueOrder(), uniqueOrder(), uniqueOrder()];
    const whole = templateCsv(orders);
    const firstTwo = templateCsv(orders.slice(0, 2));
    expect(whole.startsWith(firstTwo)).toBe(true);
    const path = join(dir, 'orders.csv');
    writeFileSync(path, firstTwo);

    // The writer goes on while the watcher imports what it saw.
    const importFile = f.staging.importFile.bind(f.staging);
    let appended = false;
    f.staging.importFile = async (request) => {
      const outcome = await importFile(request);
      if (!appended) {
        appended = true;
        appendFileSync(path, whole.slice(firstTwo.length));
      }
      return outcome;
    };

    await watcher.pollOnce();
    await watcher.pollOnce();
    expect(appended).toBe(true);
    expect(queued(f)).toBe(0);
    expect(results).toMatchObject([{ name: 'orders.csv', outcome: 'waiting' }]);
    const discardedBatch = results[0]!.batchId;
    expect(discardedBatch).not.toBeNull();
    expect(f.store.audit.search({ action: 'batch.discarded' })).toMatchObject([{ batchId: discardedBatch }]);
    expect(f.store.audit.search({ action: 'intake.file.changed' })).toMatchObject([
      { batchId: discardedBatch, details: { fileName: 'orders.csv' } },
    ]);
    expect(lines.some((line) => line.includes('changed while it was read'))).toBe(true);
    expect(existsSync(path)).toBe(true);

    // Unchanged over a poll: read again, all three orders, and moved to done/.
    await watcher.pollOnce();
    await watcher.pollOnce();
    expect(queued(f)).toBe(3);
    expect(results.at(-1)).toMatchObject({ name: 'orders.csv', outcome: 'done' });
    expect(results.at(-1)!.batchId).not.toBe(discardedBatch);
    expect(readdirSync(join(dir, 'done'))).toEqual(['orders.csv']);
  });
});
