import { appendFileSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../platform/logger.js';
import { stagingFixture, templateCsv, uniqueOrder, type StagingFixture } from '../staging/testing/staging-fixtures.js';
import { IntakeRepo } from '../store/intake-repo.js';
import { LOCAL } from '../store/testing/store-fixtures.js';
import { FolderWatcher, type WatchedFileResult } from './folder-watcher.js';

/**
 * A writer that pauses longer than a poll and then writes on: the file looked complete, was hashed and imported,
 * and grew meanwhile. The orders read were then sent while the file's recorded hash was of other bytes, and the
 * order written last was in neither the batch nor, once the file was moved to done/, any later import.
 */

let fixture: StagingFixture | undefined;
afterEach(() => {
  fixture?.close();
  fixture = undefined;
});

const queued = (f: StagingFixture) => f.store.orders.countByState(LOCAL.id).queued;

describe('a watched file written to while it is read', () => {
  it('is not taken as it was read: its batch is discarded, the file stays, and it is read whole once it stops changing', async () => {
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
